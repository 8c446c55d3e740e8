import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stub saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export type StubHandler = (req: SeenRequest, res: ServerResponse) => void;

/**
 * A bare HTTP server on loopback whose answers each test scripts, for the transport's corner cases the emulator
 * has no reason to produce (an HTTP-date Retry-After, a proxy's HTML page, a body of the wrong shape).
 */
export class StubServer {
  readonly seen: SeenRequest[] = [];
  private handlers: StubHandler[] = [];
  private fallback: StubHandler = (_req, res) => json(res, 200, { success: true, errors: [], messages: [], result: null });
  private server: Server | undefined;
  baseUrl = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.seen.push(seen);
        (this.handlers.shift() ?? this.fallback)(seen, res);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}/client/v4`;
    return this;
  }

  /** Answers the next requests with these handlers, in order; later ones get the fallback. */
  next(...handlers: StubHandler[]): void {
    this.handlers.push(...handlers);
  }

  always(handler: StubHandler): void {
    this.fallback = handler;
  }

  reset(): void {
    this.seen.length = 0;
    this.handlers = [];
    this.always((_req, res) => json(res, 200, { success: true, errors: [], messages: [], result: null }));
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export const ok = (result: unknown, extra: Record<string, unknown> = {}) => ({ success: true, errors: [], messages: [], result, ...extra });
export const fail = (code: number, message: string) => ({ success: false, errors: [{ code, message }], messages: [], result: null });
