import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server whose connections a test cuts or stalls, as a network failure
 * would: the client sees its connection fail (or go silent), not an error from the server. Cut at
 * once with {@link TcpProxy.cut}, or when a given text passes with {@link TcpProxy.arm}.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #trigger: { text: string; action: 'cut' | 'cut-answer' | 'stall' } | undefined;
  /** Forward nothing more, on any connection, old or new. */
  #stalled = false;
  /** The text of the trigger was sent: the next answer from the server is dropped and everything cut. */
  #answerDue = false;
  port = 0;

  constructor(host: string, port: number) {
    this.#server = createServer((client) => {
      const upstream = connect(port, host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.on('data', (data: Buffer) => this.#sent(data, upstream));
      upstream.on('data', (data: Buffer) => this.#answered(data, client));
      client.on('close', () => this.#stalled || upstream.destroy());
      upstream.on('close', () => this.#stalled || client.destroy());
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as { port: number }).port;
  }

  /**
   * When the client sends `text`: `cut` resets every connection before it reaches the server;
   * `cut-answer` lets it through and resets every connection as the server's answer comes
   * (the server did it, the client never hears so); `stall` stops forwarding for good.
   */
  arm(text: string, action: 'cut' | 'cut-answer' | 'stall'): void {
    this.#trigger = { text, action };
  }

  #sent(data: Buffer, upstream: Socket): void {
    if (this.#stalled) return;
    const trigger = this.#trigger;
    if (trigger && data.toString('latin1').includes(trigger.text)) {
      this.#trigger = undefined;
      if (trigger.action === 'cut') return this.cut();
      if (trigger.action === 'stall') {
        this.#stalled = true;
        return;
      }
      this.#answerDue = true;
    }
    upstream.write(data);
  }

  #answered(data: Buffer, client: Socket): void {
    if (this.#stalled) return;
    if (this.#answerDue) {
      this.#answerDue = false;
      return this.cut();
    }
    client.write(data);
  }

  /** Reset every open connection now, as a network failure would. */
  cut(): void {
    for (const socket of this.#sockets) socket.resetAndDestroy();
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
