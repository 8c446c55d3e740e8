// The npm registry reachable from our machines serves only the Linux builds of some packages' per-platform
// optional binaries (unrs-resolver's, under jest's resolver). npm then writes a package-lock.json without the
// others, and `npm ci` refuses it as out of sync, here and on every other machine. This adds the missing entries
// (version and platform only; npm installs an optional binary only on its own platform, and fetches it by
// version there). Run it after any `npm install` that rewrote the lockfile: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const PLATFORM = /^@unrs\/resolver-binding-(android|darwin|freebsd|linux|openharmony|win32)-(arm64|arm|x64|ia32|loong64|ppc64|riscv64|s390x)(?:-(gnueabihf|gnu|musleabihf|musl|eabi|msvc))?$/;
const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
let added = 0;
for (const [owner, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const match = PLATFORM.exec(name);
    if (lock.packages[key] || !match) continue;
    const [, os, cpu, abi] = match;
    const libc = os === 'linux' ? (abi?.startsWith('musl') ? ['musl'] : ['glibc']) : undefined;
    lock.packages[key] = {
      version,
      cpu: [cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(libc ? { libc } : {}),
      optional: true,
      os: [os],
    };
    added += 1;
    console.log(`added ${key}@${version} (optional dependency of ${owner})`);
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`${added} entries added`);
