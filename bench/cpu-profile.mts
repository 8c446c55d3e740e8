// Where this process's CPU goes during some walks, by layer: bench/list-walk-parts.mts profiles each variant's timed
// walks with the inspector (not the set-up and warm-up that `node --cpu-prof` also records) and prints this split.
import * as fs from 'node:fs';
import { Session } from 'node:inspector/promises';

/** The parts of a cpuprofile this summary reads. */
interface CpuProfile {
  nodes: Array<{
    id: number;
    children?: number[];
    callFrame: { functionName: string; url: string };
    positionTicks?: Array<{ line: number; ticks: number }>;
  }>;
  samples: number[];
  timeDeltas: number[];
}

/** The layers a sample is counted in, in the order they are printed. */
export const LAYERS = [
  'HTTP: got and node:http under it',
  'HTTP: fetch (undici) with its JSON parse',
  'JSON.parse of the answers (got)',
  'item validation (Ajv)',
  'the client: transport, paging, budget, zod',
  'promise and tick queues',
  'GC',
  'the measuring loop',
  'other',
] as const;
export type Layer = (typeof LAYERS)[number];

/** Samples taken while `run` runs, with the sampling interval of `node --cpu-prof`. */
export async function profile<T>(run: () => Promise<T>): Promise<{ result: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 1000 });
    await session.post('Profiler.start');
    const result = await run();
    const { profile: taken } = await session.post('Profiler.stop');
    return { result, profile: taken as unknown as CpuProfile };
  } finally {
    session.disconnect();
  }
}

/**
 * Milliseconds of samples per layer (idle time and the profiler's own excluded). V8 inlines JSON.parse into its caller:
 * in the client and in `measuringFile` (the variants' own loops) it is counted from the ticks of the source lines that
 * call it; fetch's stays in undici.
 */
export function layers(taken: CpuProfile, measuringFile: string): Map<Layer, number> {
  const selfMs = new Map<number, number>();
  taken.samples.forEach((id, i) => selfMs.set(id, (selfMs.get(id) ?? 0) + (taken.timeDeltas[i] ?? 0) / 1000));
  const sources = new Map<string, string[]>();
  const lineOf = (url: string, line: number) => {
    if (!sources.has(url)) sources.set(url, fs.readFileSync(new URL(url), 'utf8').split('\n'));
    return sources.get(url)![line - 1] ?? '';
  };
  const parentUrl = new Map<number, string>();
  for (const node of taken.nodes) for (const child of node.children ?? []) parentUrl.set(child, node.callFrame.url);
  const totals = new Map<Layer, number>(LAYERS.map((layer) => [layer, 0]));
  const add = (layer: Layer, ms: number) => totals.set(layer, totals.get(layer)! + ms);
  for (const node of taken.nodes) {
    const ms = selfMs.get(node.id) ?? 0;
    if (ms === 0) continue;
    const { functionName: name, url } = node.callFrame;
    if (['(idle)', '(root)', '(program)'].includes(name) || url.includes('inspector')) continue;
    if (name === '(garbage collector)') add('GC', ms);
    else if (url.includes('/node_modules/ajv/') || /^validate\d+$/.test(name)) add('item validation (Ajv)', ms);
    else if (url === measuringFile || (url.includes('/dist/client/') && !url.includes('/node_modules/'))) {
      const rest: Layer = url === measuringFile ? 'the measuring loop' : 'the client: transport, paging, budget, zod';
      const ticks = node.positionTicks ?? [];
      const all = ticks.reduce((sum, tick) => sum + tick.ticks, 0);
      const parsing = ticks.filter((tick) => lineOf(url, tick.line).includes('JSON.parse(')).reduce((sum, tick) => sum + tick.ticks, 0);
      const share = all > 0 ? parsing / all : 0;
      add('JSON.parse of the answers (got)', ms * share);
      add(rest, ms * (1 - share));
    } else if ((url.includes('/dist/') && !url.includes('/node_modules/')) || url.includes('/node_modules/zod/')) {
      add('the client: transport, paging, budget, zod', ms);
    } else if (url === '' && name === 'parse') {
      add(parentUrl.get(node.id)?.includes('undici') ? 'HTTP: fetch (undici) with its JSON parse' : 'JSON.parse of the answers (got)', ms);
    } else if (url.includes('undici')) add('HTTP: fetch (undici) with its JSON parse', ms);
    else if (name === 'runMicrotasks' || url.includes('task_queues')) add('promise and tick queues', ms);
    else if (url.includes('/node_modules/') || url.startsWith('node:') || url === '') add('HTTP: got and node:http under it', ms);
    else add('other', ms);
  }
  return totals;
}
