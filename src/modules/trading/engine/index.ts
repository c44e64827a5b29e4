/** The pure order-book matching engine core (no I/O, no clock, no randomness). */
export * from '../../../platform/decimal/fixed18';
export * from './order-book';
export * from './matching';
