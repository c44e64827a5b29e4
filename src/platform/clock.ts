/**
 * The platform's clock: command handlers (through the CommandExecutor's decide context) and time-based queries
 * (budgets per UTC day and month, expiry sweeps) read the time here, so tests can move it across a midnight or a
 * month end without waiting. Production uses the system clock.
 */
export const CLOCK = Symbol('CLOCK');

export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
