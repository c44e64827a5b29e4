/**
 * How the threads of one process tell each other what happened (issue 48): the main thread's commits to the log, a
 * worker thread's checkpoint advances. A BroadcastChannel per channel name, prefixed with the bus id the main thread
 * made, so two platforms in one process (tests run several) never hear each other. Unlike PostgreSQL's NOTIFY nothing
 * is lost between live threads; a message posted after a commit arrives after it, so the reader sees its rows.
 */
import { BroadcastChannel } from 'node:worker_threads';

export interface BusListener {
  stop(): void;
  readonly listening: boolean;
}

export class ThreadBus {
  private readonly senders = new Map<string, BroadcastChannel>();
  private readonly receivers = new Set<BroadcastChannel>();
  private closed = false;

  constructor(readonly id: string) {}

  /** Calls `handler` with every message another BroadcastChannel of this bus posts on `channel`, until stopped. */
  listen<T>(channel: string, handler: (message: T) => void): BusListener {
    const receiver = new BroadcastChannel(this.name(channel));
    // An idle listener does not keep the process alive.
    receiver.unref();
    receiver.onmessage = (event) => handler((event as { data: T }).data);
    this.receivers.add(receiver);
    let open = true;
    return {
      stop: () => {
        if (!open) return;
        open = false;
        this.receivers.delete(receiver);
        receiver.close();
      },
      get listening() {
        return open;
      },
    };
  }

  /** Posts to every listener of `channel` in the other threads (and other listeners of this one); structured clone. */
  notify(channel: string, message: unknown): void {
    if (this.closed) return;
    let sender = this.senders.get(channel);
    if (!sender) {
      sender = new BroadcastChannel(this.name(channel));
      sender.unref();
      this.senders.set(channel, sender);
    }
    sender.postMessage(message);
  }

  close(): void {
    this.closed = true;
    for (const c of [...this.senders.values(), ...this.receivers]) c.close();
    this.senders.clear();
    this.receivers.clear();
  }

  private name(channel: string): string {
    return `platform ${this.id} ${channel}`;
  }
}
