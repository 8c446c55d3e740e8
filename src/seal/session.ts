// The seal in a provider process (docs/sealed-previews.md): the file an up keeps, named by ZONEGUARD_SEAL, read once;
// and the file a sealed preview's providers record into, named by ZONEGUARD_SEAL_RECORD. The Pulumi CLI starts the
// providers with its own environment, so a variable set for the `pulumi` command reaches them; a stack config key
// would be stored with the stack and kept by every later up, where a seal belongs to one up.
import * as fs from 'node:fs';
import { readSeal, type LandingRecord, type Seal } from './format';

/** The environment variable that names the seal an up keeps. */
export const SEAL_VARIABLE = 'ZONEGUARD_SEAL';
/** The environment variable that names the file a sealed preview's providers record landings into. */
export const SEAL_RECORD_VARIABLE = 'ZONEGUARD_SEAL_RECORD';

/** Why a seal cannot be kept: one line, said before any write. */
export class SealRefusedError extends Error {
  override readonly name = 'SealRefusedError';
}

let loaded: { file: string; seal: Seal | undefined; refusal: string | undefined } | undefined;

/**
 * The seal this process's up keeps, read and checked once (its digest: readSeal); undefined without ZONEGUARD_SEAL.
 * Throws SealRefusedError, the same line at every call, for a file that cannot be read or is refused.
 */
export function activeSeal(env: NodeJS.ProcessEnv = process.env): Seal | undefined {
  const file = env[SEAL_VARIABLE];
  if (file === undefined || file === '') return undefined;
  if (loaded?.file !== file) {
    let text: string | undefined;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      loaded = {
        file,
        seal: undefined,
        refusal: `zoneguard: ${SEAL_VARIABLE} names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); nothing was written`,
      };
    }
    if (text !== undefined) {
      const read = readSeal(text, file);
      loaded = 'seal' in read ? { file, seal: read.seal, refusal: undefined } : { file, seal: undefined, refusal: `${read.refusal}; nothing was written` };
    }
  }
  if (loaded!.refusal !== undefined) throw new SealRefusedError(loaded!.refusal);
  return loaded!.seal;
}

/** Appends what a sealed preview's provider saw to the record file, when the preview is sealed (one line each: appends of one line do not interleave). */
export function recordLanding(record: LandingRecord, env: NodeJS.ProcessEnv = process.env): void {
  const file = env[SEAL_RECORD_VARIABLE];
  if (file === undefined || file === '') return;
  fs.appendFileSync(file, `${JSON.stringify(record)}\n`);
}

/** For tests: forget the seal read. */
export function resetSeal(): void {
  loaded = undefined;
}
