/**
 * A sweep a node runs every `intervalMs` (closures past their grace period, intents past their expiry): never two
 * runs at once on a node, a failure reported and retried at the next tick, and on shutdown no new run while the one
 * in progress is awaited. The work itself must be safe to repeat (other nodes sweep too).
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly intervalMs: number,
    private readonly run: () => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.run()
        .catch(this.onError)
        .finally(() => (this.running = null));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
