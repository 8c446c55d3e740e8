// `npm run bench` (scripts/bench.sh builds and sets up the engine, then runs this): runs every benchmark in its own
// Node process, one after the other, and writes BENCHMARKS.md with each figure and the command that measured it.
// With bench names as arguments (`npm run bench -- lifecycle`), runs only those and prints, leaving BENCHMARKS.md.
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as Lib from './lib.mjs';

const lib: typeof Lib = await import(new URL('./lib.mts', import.meta.url).href);
const { fmt, table } = lib;

/** Each bench: its file, the Node flags it needs, and how to read its result. */
const BENCHES = [
  { name: 'lifecycle', file: 'bench/lifecycle.bench.mts', flags: [] as string[], engine: true },
  { name: 'rate-limit', file: 'bench/rate-limit.bench.mts', flags: [], engine: true },
  { name: 'waf-managed-rules', file: 'bench/waf-managed-rules.bench.mts', flags: [], engine: true },
  { name: 'custom-rules', file: 'bench/custom-rules.bench.mts', flags: [], engine: true },
  { name: 'detected-scripts', file: 'bench/detected-scripts.bench.mts', flags: ['--expose-gc'], engine: false },
  { name: 'provider-overhead', file: 'bench/provider-overhead.bench.mts', flags: [], engine: false },
  { name: 'expression', file: 'bench/expression.bench.ts', flags: [], engine: false },
  { name: 'firewall-upgrade', file: 'bench/firewall-upgrade.bench.mts', flags: [], engine: false },
  { name: 'firewall-move', file: 'bench/firewall-move.bench.mts', flags: [], engine: true },
  { name: 'refresh-coalesced', file: 'bench/refresh-coalesced.bench.mts', flags: [], engine: true },
  { name: 'sealed-preview', file: 'bench/sealed-preview.bench.mts', flags: [], engine: true },
  { name: 'fleet', file: 'bench/fleet.bench.mts', flags: [], engine: true },
  { name: 'growth', file: 'bench/growth.bench.mts', flags: [], engine: true },
  { name: 'calibration', file: 'bench/calibration.bench.mts', flags: [], engine: false },
];
const SETUP = 'source scripts/env.sh && tsc -p tsconfig.build.json';
const ENGINE = 'source scripts/engine.sh';

// `--write` with bench names: their rows and sections of BENCHMARKS.md are replaced (or added), the rest kept, so an
// engine bench can run as its own piece (no hold of the engine lock over 10 minutes) and still land in the file.
const merge = process.argv.includes('--write');
const wanted = process.argv.slice(2).filter((arg) => arg !== '--write');
const unknown = wanted.filter((name) => !BENCHES.some((bench) => bench.name === name));
if (unknown.length > 0) {
  console.error(`unknown bench ${unknown.join(', ')}; known: ${BENCHES.map((bench) => bench.name).join(', ')}`);
  process.exit(2);
}
const selected = wanted.length > 0 ? BENCHES.filter((bench) => wanted.includes(bench.name)) : BENCHES;

const run = (file: string, flags: string[]) =>
  new Promise<{ stdout: string; ms: number }>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...flags, file], { cwd: lib.root, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const line of chunk.toString().split('\n')) if (line && !line.startsWith(lib.RESULT_PREFIX)) process.stdout.write(`  ${line}\n`);
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ stdout, ms: performance.now() - started }) : reject(new Error(`${file} exited with ${code}`))));
  });

/** The expression bench predates the others and prints text: its two rates become a result here. */
function expressionResult(stdout: string, command: string): Lib.BenchResult {
  const rates = [...stdout.matchAll(/^(\w+) \(([^)]*)\): ([\d,]+) expressions\/s \((\d+) in ([\d.]+) s, ([\d.]+) µs each\)/gm)];
  const corpus = /^corpus: (.*)$/m.exec(stdout)?.[1];
  if (rates.length !== 2 || !corpus) throw new Error(`bench/expression.bench.ts printed something unexpected:\n${stdout}`);
  return {
    bench: 'Expressions parsed per second',
    command,
    figures: rates.map((rate) => ({ what: `Expressions per second, \`${rate[1]}\` (${rate[2]})`, value: `${rate[3]}/s (${rate[6]} µs each)` })),
    section: [
      `The documented corpus (test/expression/corpus/valid.json: ${corpus}), each function timed for 2 s after a warm-up, on the compiled module in dist/.`,
      '',
      table(
        ['function', 'expressions/s', 'expressions timed', 'seconds', 'µs each'],
        rates.map((rate) => [`${rate[1]} (${rate[2]})`, rate[3]!, rate[4]!, rate[5]!, rate[6]!]),
      ),
    ].join('\n'),
  };
}

const machine = lib.machine();
const pulumiVersion = execFileSync('pulumi', ['version'], { encoding: 'utf8' }).trim();
const sdkVersion = (JSON.parse(fs.readFileSync(path.join(lib.root, 'node_modules/@pulumi/pulumi/package.json'), 'utf8')) as { version: string }).version;
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: lib.root, encoding: 'utf8' }).trim();
const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: lib.root, encoding: 'utf8' }).split('\n').filter(Boolean).length;
const started = new Date();

const results: Array<Lib.BenchResult & { ms: number; loadAfter: number[] }> = [];
for (const bench of selected) {
  console.log(`\n== ${bench.file}`);
  const { stdout, ms } = await run(bench.file, bench.flags);
  const alone = `${SETUP}${bench.engine ? ` && ${ENGINE}` : ''} && node ${[...bench.flags, bench.file].join(' ')}`;
  const line = stdout.split('\n').find((text) => text.startsWith(lib.RESULT_PREFIX));
  const result = line ? (JSON.parse(line.slice(lib.RESULT_PREFIX.length)) as Lib.BenchResult) : expressionResult(stdout, alone);
  results.push({ ...result, command: alone, ms, loadAfter: lib.machine().loadAverage });
}

const summary = results.flatMap((result) =>
  result.figures.map((figure) => [
    figure.what,
    figure.value,
    figure.goal === undefined ? '-' : `${figure.goal}${figure.met === undefined ? '' : figure.met ? ' ✓' : ' ✗ not met'}`,
    `\`${result.command.split(' && ').pop()}\``,
  ]),
);
for (const row of summary) console.log(`${row[0]}: ${row[1]}${row[2] === '-' ? '' : ` [goal ${row[2]}]`}`);

if (wanted.length > 0 && merge) {
  const file = path.join(lib.root, 'BENCHMARKS.md');
  let document = fs.readFileSync(file, 'utf8');
  for (const result of results) {
    const command = `\`${result.command.split(' && ').pop()}\``;
    const rows = summary.filter((row) => row[3] === command).map((row) => table(['', '', '', ''], [row]).split('\n')[2]!);
    const isOwnRow = (line: string) => line.startsWith('| ') && line.endsWith(`| ${command} |`);
    // The bench's rows go where its rows were; a bench new to the file adds them at the end of the summary table,
    // which ends at the last table row before the first section after '## Summary'.
    const ownAt = document.split('\n').findIndex(isOwnRow);
    const lines = document.split('\n').filter((line) => !isOwnRow(line));
    const summaryAt = lines.indexOf('## Summary');
    const nextSection = lines.findIndex((line, i) => i > summaryAt && line.startsWith('## '));
    const lastRow = lines.slice(0, nextSection < 0 ? lines.length : nextSection).findLastIndex((line) => line.startsWith('| '));
    lines.splice(ownAt < 0 ? lastRow + 1 : ownAt, 0, ...rows);
    document = lines.join('\n');
    const heading = `## ${result.bench}\n`;
    const section = [
      heading,
      `Command: \`${result.command}\` (${fmt.ms(result.ms)}, run ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC at commit ${commit}${dirty > 0 ? ` with ${dirty} tracked files modified` : ''}, Pulumi CLI ${pulumiVersion} with @pulumi/pulumi ${sdkVersion}; load average after it ${result.loadAfter.map((value) => value.toFixed(2)).join(', ')})`,
      '',
      result.section,
      '',
    ].join('\n');
    const at = document.indexOf(heading);
    if (at < 0) document = `${document.trimEnd()}\n\n${section}`;
    else {
      const next = document.indexOf('\n## ', at + heading.length);
      document = document.slice(0, at) + section + (next < 0 ? '' : document.slice(next));
    }
  }
  fs.writeFileSync(file, document.endsWith('\n') ? document : `${document}\n`);
  console.log('\nBENCHMARKS.md: the rows and sections of these benches written, the rest kept');
} else if (wanted.length > 0) {
  console.log('\n(bench names given: BENCHMARKS.md left as it is; add --write to write their rows and sections, or run `npm run bench` alone to rewrite it)');
} else {
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(', ');
  const document = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` (scripts/bench.sh → bench/report.mts) on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC; ` +
      'the lines below describe that run. A section rewritten since by one bench (`npm run bench -- NAME --write`) says in its ' +
      'Command line when, at which commit and with which Pulumi CLI it ran, and its summary rows come from that run. Do not edit by hand: run `npm run bench` again.',
    '',
    `- Node ${machine.node} (${machine.platform}), Pulumi CLI ${pulumiVersion}, @pulumi/pulumi ${sdkVersion}`,
    `- ${machine.cpus} CPUs (nproc) ${machine.cpuModel}, ${fmt.bytes(machine.memoryBytes)} memory; load average (1, 5, 15 min) ${load(machine.loadAverage)} at the start: ` +
      'the machine is shared, so times carry that load',
    `- commit ${commit}${dirty > 0 ? ` with ${dirty} tracked files modified in the working tree` : ''}; the package is built from the working tree (\`tsc -p tsconfig.build.json\`) and the providers load it from dist/`,
    '- the service is the emulator (`pulumi-zoneguard/emulator`) on loopback; the stacks run through the real Pulumi CLI and engine, programs inline (Automation API)',
    '',
    'Each command below runs one bench alone from the repository root; `npm run bench` runs them all, each in its own Node process, one after the other.',
    '',
    '## Summary',
    '',
    table(['figure', 'measured', 'goal', 'command'], summary),
    '',
    ...results.flatMap((result) => [
      `## ${result.bench}`,
      '',
      `Command: \`${result.command}\` (${fmt.ms(result.ms)}; load average after it ${load(result.loadAfter)})`,
      '',
      result.section,
      '',
    ]),
  ].join('\n');
  fs.writeFileSync(path.join(lib.root, 'BENCHMARKS.md'), document);
  console.log('\nBENCHMARKS.md written');
}
