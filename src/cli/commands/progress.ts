import type { LoadProgress } from '../../insights';
import type { CliIo } from './io';

/**
 * Progress of list walks on stderr. On a terminal one line is redrawn and cleared at the end; otherwise one line
 * per page, so logs show how far a slow walk got. `quiet` turns it off.
 */
export function progressReporter(io: CliIo, quiet: boolean | undefined): { onProgress: (p: LoadProgress) => void; done: () => void } {
  if (quiet) return { onProgress: () => undefined, done: () => undefined };
  const tty = io.stderr.isTTY === true;
  let drawn = false;
  return {
    onProgress: (p) => {
      const text = `zoneguard: loading ${p.kind}: page ${p.page}/${p.totalPages} (${p.loaded}/${p.totalCount})`;
      if (tty) {
        io.stderr.write(`\r\x1b[2K${text}`);
        drawn = true;
      } else {
        io.stderr.write(`${text}\n`);
      }
    },
    done: () => {
      if (drawn) io.stderr.write('\r\x1b[2K');
      drawn = false;
    },
  };
}
