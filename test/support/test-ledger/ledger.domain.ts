/**
 * A test-only aggregate that proves the core: a ledger with credits and debits in integer minor units carried as
 * decimal strings. Pure decide/evolve, as every module writes them.
 */
import { RuleViolation, StateConflict } from '../../../src/platform/errors';
import type { Decider } from '../../../src/platform/command/decider';
import { declareEventClasses } from '../../../src/platform/privacy/field-classes';

export type LedgerEvent =
  | { type: 'LedgerOpened'; data: { ledger_id: string; owner: string } }
  | { type: 'LedgerCredited'; data: { ledger_id: string; amount: string } }
  | { type: 'LedgerDebited'; data: { ledger_id: string; amount: string } };

export type LedgerCommand =
  | { kind: 'OpenLedger'; ledger_id: string; owner: string }
  | { kind: 'CreditLedger'; ledger_id: string; amount: string }
  | { kind: 'DebitLedger'; ledger_id: string; amount: string };

export interface LedgerState {
  opened: boolean;
  owner: string | null;
  balance: bigint;
}

export const ledgerStream = (id: string): string => `test-ledger-${id}`;

export const ledgerDecider: Decider<LedgerCommand, LedgerState, LedgerEvent> = {
  initialState: () => ({ opened: false, owner: null, balance: 0n }),
  evolve(state, event) {
    switch (event.type) {
      case 'LedgerOpened':
        return { ...state, opened: true, owner: event.data.owner };
      case 'LedgerCredited':
        return { ...state, balance: state.balance + BigInt(event.data.amount) };
      case 'LedgerDebited':
        return { ...state, balance: state.balance - BigInt(event.data.amount) };
    }
  },
  decide(command, state) {
    switch (command.kind) {
      case 'OpenLedger':
        if (state.opened) throw new StateConflict('The ledger is already open.');
        return [{ type: 'LedgerOpened', data: { ledger_id: command.ledger_id, owner: command.owner } }];
      case 'CreditLedger':
        if (!state.opened) throw new StateConflict('The ledger is not open.');
        return [{ type: 'LedgerCredited', data: { ledger_id: command.ledger_id, amount: command.amount } }];
      case 'DebitLedger':
        if (!state.opened) throw new StateConflict('The ledger is not open.');
        if (state.balance < BigInt(command.amount)) {
          throw new RuleViolation('Insufficient balance.', [{ field: 'amount', issue: 'exceeds the balance' }]);
        }
        return [{ type: 'LedgerDebited', data: { ledger_id: command.ledger_id, amount: command.amount } }];
    }
  },
};

/** The test ledger's events, classified like a module's (src/platform/privacy/field-classes.ts). */
export const LEDGER_EVENT_CLASSES = declareEventClasses<LedgerEvent>('test-ledger', {
  LedgerOpened: { ledger_id: 'internal', owner: 'personal' },
  LedgerCredited: { ledger_id: 'internal', amount: 'internal' },
  LedgerDebited: { ledger_id: 'internal', amount: 'internal' },
});
