import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import { createInterface } from 'node:readline';

/**
 * A real redis-server (Debian's `redis-server` package, installed by .ci/run) on a free loopback port, nothing
 * saved to disk. Missing, it fails the tests that need it: the shared rate budget is not tested against a stand-in.
 */
export function useRedisServer(): () => { url: string; port: number } {
  let server: ChildProcess | undefined;
  let port = 0;
  beforeAll(async () => {
    port = await freePort();
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const started = server;
    await new Promise<void>((resolve, reject) => {
      started.on('error', (error) =>
        reject(new Error(`redis-server could not start (${error.message}); install it: apt-get install -y redis-server`)),
      );
      started.on('exit', (code) => reject(new Error(`redis-server exited with code ${String(code)} before it was ready`)));
      const lines = createInterface({ input: started.stdout! });
      lines.on('line', (line) => {
        if (line.includes('Ready to accept connections')) resolve();
      });
    });
  });
  afterAll(async () => {
    if (!server || server.exitCode !== null) return;
    const stopped = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await stopped;
  });
  return () => ({ url: `redis://127.0.0.1:${port}`, port });
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
