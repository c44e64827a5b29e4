/**
 * A merchant's product: a name and a price in one asset. One stream per product (`commerce-product-<product_uuid>`),
 * version = stream revision. Only an ACTIVE merchant's product may become ACTIVE (the handler passes the merchant's
 * status in; a merchant suspended later keeps its products' states, and invoices check the merchant anyway).
 *
 * | From | Transition | To | Condition |
 * |---|---|---|---|
 * | (new) | create | DRAFT | merchant not CLOSED or REJECTED |
 * | DRAFT | activate | ACTIVE | merchant ACTIVE (else 422 RULE_VIOLATION) |
 * | DRAFT, ACTIVE | archive | ARCHIVED | |
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { PlatformError, RuleViolation, StateConflict } from '../../../platform/errors';
import type { MerchantStatus } from './merchant';
import { staleVersion } from './merchant';

export const PRODUCT_STATUSES = ['DRAFT', 'ACTIVE', 'ARCHIVED'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];
export const PRODUCT_TRANSITIONS = ['activate', 'archive'] as const;
export type ProductTransition = (typeof PRODUCT_TRANSITIONS)[number];

export const PRODUCT_RULES: Record<ProductTransition, { from: readonly ProductStatus[]; to: ProductStatus }> = {
  activate: { from: ['DRAFT'], to: 'ACTIVE' },
  archive: { from: ['DRAFT', 'ACTIVE'], to: 'ARCHIVED' },
};

export const productStream = (product_uuid: string): string => `commerce-product-${product_uuid}`;

export interface ProductCore {
  product_uuid: string;
  merchant_uuid: string;
  workspace_uuid: string;
  name: string;
  description: string;
  sku: string | null;
  /** Decimal string at the asset's scale. */
  price: string;
  asset: string;
  created_by_profile_uuid: string;
  created: string;
}

export type ProductEvent =
  | { type: 'CommerceProductCreated'; data: { product: ProductCore } }
  | { type: 'CommerceProductChanged'; data: { product_uuid: string; transition: ProductTransition; from: ProductStatus; to: ProductStatus; by_profile_uuid: string; at: string } };

export interface ProductState {
  product: ProductCore | null;
  status: ProductStatus;
  version: number;
  updated: string | null;
}

export type ProductCommand =
  | { kind: 'CreateProduct'; product: ProductCore; merchant_status: MerchantStatus }
  | { kind: 'ChangeProduct'; transition: ProductTransition; expected_version: number; by_profile_uuid: string; merchant_status: MerchantStatus };

export class ProductNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such product.');
  }
}

function initialState(): ProductState {
  return { product: null, status: 'DRAFT', version: -1, updated: null };
}

function evolve(state: ProductState, event: ProductEvent): ProductState {
  switch (event.type) {
    case 'CommerceProductCreated':
      return { product: event.data.product, status: 'DRAFT', version: 0, updated: event.data.product.created };
    case 'CommerceProductChanged':
      return { ...state, status: event.data.to, version: state.version + 1, updated: event.data.at };
  }
}

function decide(command: ProductCommand, state: ProductState, ctx: DecideContext): ProductEvent[] {
  if (command.kind === 'CreateProduct') {
    if (state.product) return [];
    if (command.merchant_status === 'CLOSED' || command.merchant_status === 'REJECTED') {
      throw new RuleViolation(`A ${command.merchant_status} merchant takes no new products.`, [{ field: 'merchant_uuid', issue: `merchant is ${command.merchant_status}` }]);
    }
    return [{ type: 'CommerceProductCreated', data: { product: command.product } }];
  }
  const product = state.product;
  if (!product) throw new ProductNotFound();
  if (command.expected_version !== state.version) throw staleVersion('product', command.expected_version, state.version);
  const rule = PRODUCT_RULES[command.transition];
  if (!rule.from.includes(state.status)) {
    throw new StateConflict(`A ${state.status} product cannot be ${command.transition === 'activate' ? 'activated' : 'archived'}.`, {
      details: [{ field: 'status', issue: `is ${state.status}; ${command.transition} needs ${rule.from.join(' or ')}` }],
    });
  }
  if (command.transition === 'activate' && command.merchant_status !== 'ACTIVE') {
    throw new RuleViolation("Only an ACTIVE merchant's product can be ACTIVE.", [{ field: 'merchant_uuid', issue: `merchant is ${command.merchant_status}` }]);
  }
  return [
    { type: 'CommerceProductChanged', data: { product_uuid: product.product_uuid, transition: command.transition, from: state.status, to: rule.to, by_profile_uuid: command.by_profile_uuid, at: ctx.now.toISOString() } },
  ];
}

export const productDecider: Decider<ProductCommand, ProductState, ProductEvent> = { initialState, evolve, decide };
