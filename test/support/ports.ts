/** Ports for the server processes the integration tests start. */
import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 right now (for a server process a test starts). */
export const freePort = (): Promise<number> =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
