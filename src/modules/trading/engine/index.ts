/** The pure order-book matching engine core (no I/O, no clock, no randomness). */
export * from './fixed18';
export * from './order-book';
export * from './matching';
