/**
 * The billing catalogue (pure decider): the products platform admins define, the seeds' BillingProduct, on one stream
 * (`billing-catalog`). A product is a PLAN (a subscription granting `credit_units` every `interval`) or a TOPUP (a
 * one-off purchase of non-expiring credits, no `interval`); `amount_minor` is its price as an integer in the smallest
 * unit of its ISO 4217 `currency`. A product code is unique; a retired product is no longer sold (existing
 * subscriptions keep running until cancelled).
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { StateConflict } from '../../../platform/errors';

export const CATALOG_STREAM = 'billing-catalog';
export const PRODUCT_TYPES = ['PLAN', 'TOPUP'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];
export const PLAN_INTERVALS = ['month'] as const;

/** The seeds' BillingProduct. */
export interface BillingProduct {
  product_id: string;
  code: string;
  name: string;
  description: string;
  product_type: ProductType;
  amount_minor: number;
  currency: string;
  credit_units: string;
  /** PLAN only; absent for top-ups. */
  interval?: string;
}

export type CatalogEvent =
  | { type: 'BillingProductDefined'; data: { product: BillingProduct; by_profile_uuid: string; at: string } }
  | { type: 'BillingProductRetired'; data: { code: string; by_profile_uuid: string; at: string } };

export interface CatalogState {
  products: Record<string, BillingProduct & { retired: boolean }>;
}

export type CatalogCommand = { kind: 'DefineProduct'; product: BillingProduct; by_profile_uuid: string } | { kind: 'RetireProduct'; code: string; by_profile_uuid: string };

export const catalogDecider: Decider<CatalogCommand, CatalogState, CatalogEvent> = {
  initialState: () => ({ products: {} }),
  evolve(state, event) {
    if (event.type === 'BillingProductDefined') return { products: { ...state.products, [event.data.product.code]: { ...event.data.product, retired: false } } };
    const p = state.products[event.data.code];
    return p ? { products: { ...state.products, [event.data.code]: { ...p, retired: true } } } : state;
  },
  decide(command, state, ctx: DecideContext) {
    const at = ctx.now.toISOString();
    if (command.kind === 'DefineProduct') {
      const existing = state.products[command.product.code];
      if (existing) {
        if (existing.product_id === command.product.product_id) return [];
        throw new StateConflict(`A product with code ${command.product.code} exists.`, { details: [{ field: 'code', issue: `already used by product ${existing.product_id}` }] });
      }
      if ((command.product.product_type === 'PLAN') !== (command.product.interval !== undefined)) {
        throw new StateConflict('A PLAN has an interval; a TOPUP has none.', { details: [{ field: 'interval', issue: command.product.product_type === 'PLAN' ? 'required for a PLAN' : 'absent for a TOPUP' }] });
      }
      return [{ type: 'BillingProductDefined', data: { product: command.product, by_profile_uuid: command.by_profile_uuid, at } }];
    }
    const p = state.products[command.code];
    if (!p || p.retired) throw new StateConflict(`No product ${command.code} on sale.`, { details: [{ field: 'code', issue: p ? 'already retired' : 'no such product' }] });
    return [{ type: 'BillingProductRetired', data: { code: command.code, by_profile_uuid: command.by_profile_uuid, at } }];
  },
};
