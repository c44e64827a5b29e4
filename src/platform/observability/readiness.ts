/**
 * The parts of a node that /health/ready asks besides the stores and the projectors: a module registers a check
 * for what it runs (the matching engines, the Kafka topics), so the platform's health controller needs no module.
 */
import { Injectable } from '@nestjs/common';

export interface ReadinessCheck {
  status: 'up' | 'down';
  detail?: string;
}

@Injectable()
export class ReadinessRegistry {
  private readonly checks = new Map<string, () => ReadinessCheck>();

  /** `name` is the key under `checks` in the /health/ready answer. */
  register(name: string, check: () => ReadinessCheck): void {
    if (this.checks.has(name)) throw new Error(`two readiness checks are named ${name}`);
    this.checks.set(name, check);
  }

  evaluate(): Record<string, ReadinessCheck> {
    return Object.fromEntries([...this.checks].map(([name, check]) => [name, check()]));
  }
}
