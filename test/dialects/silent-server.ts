import { createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP server that accepts connections and never answers: what a hung or firewalled database
 * looks like to a client, so connect timeouts can be shown to fire.
 */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('silent server has no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Connect (with the URL's connect_timeout=1) to a silent server and return how long it took to
 * give up, asserting that it failed as MTOOL_CONNECTION.
 */
export async function secondsToGiveUp(connect: (port: number) => Promise<unknown>): Promise<number> {
  const silent = await silentServer();
  try {
    const started = Date.now();
    const error = await connect(silent.port).then(
      () => undefined,
      (e: unknown) => e,
    );
    if ((error as { code?: unknown } | undefined)?.code !== 'MTOOL_CONNECTION') throw new Error(`expected MTOOL_CONNECTION, got ${String(error)}`);
    return (Date.now() - started) / 1000;
  } finally {
    await silent.close();
  }
}
