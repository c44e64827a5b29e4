/**
 * Commerce routes (`/api/v1/commerce/…`, PLATFORM.md section 6, plus `GET …/{id}` for each record and the
 * transitions the lifecycles need). A command's answer is its record read back once the read model holds the
 * command's writes (read-your-writes); if it has not caught up in time, 202 with the record's id.
 */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, PlatformAdminOnly, type Principal } from '../../platform/auth/principal';
import { ApiErrors, ApiPendingReadBack } from '../../platform/http/openapi';
import { CommandAnswers } from '../../platform/http/command-answers';
import {
  ApplyPaymentRailUpdate, ApplyTreasuryUpdate, CancelInvoice, CancelPayment, CancelSettlement, ChangeProduct, ChangeWallet, CreateInvoice, CreateMerchant, CreatePayment, CreateProduct,
  RegisterWallet, RequestSettlement, ReviewMerchant,
} from './commands';
import type { RailTransition } from './domain/invoice-records';
import type { MerchantTransition } from './domain/merchant';
import type { TreasuryTransition } from './domain/settlement';
import {
  ActivateMerchantRequest, AddWalletAddressesRequest, CancelCommerceInvoiceRequest, CancelPaymentRequest, CancelSettlementIntentRequest, CommerceQuery, CreateInvoiceRequest,
  CreateMerchantRequest, CreatePaymentRequest, CreateProductRequest, CreateSettlementIntentRequest, ExpectedVersionRequest, InvoiceParam, MerchantParam, MerchantProductParam,
  MerchantReviewRequest, PaymentParam, PaymentRailRequest, RegisterWalletRequest, SettlementIntentParam, SettlementTreasuryRequest, WalletParam,
} from './dto/commerce.dto';
import {
  CommerceCommandReceipt, CommerceInvoicePageResponse, CommerceInvoiceResponse, CommerceMerchantPageResponse, CommerceMerchantResponse, CommercePaymentPageResponse, CommercePaymentResponse,
  CommerceProductPageResponse, CommerceProductResponse, CommerceSettlementIntentPageResponse, CommerceSettlementIntentResponse, CommerceWalletPageResponse, CommerceWalletResponse,
} from './dto/responses.dto';
import {
  GetInvoice, GetMerchant, GetPayment, GetProduct, GetSettlementIntent, GetWallet, ListInvoices, ListMerchants, ListPayments, ListProducts, ListSettlementIntents, ListWallets,
} from './queries';

@ApiTags('commerce')
@Controller('api/v1/commerce')
export class CommerceController {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly answers: CommandAnswers,
  ) {}

  private act(command: object, read: (id: string) => object): Promise<object> {
    return this.answers.act(command, read);
  }

  // Merchants -----------------------------------------------------------------------------------------------------

  @Capability('merchants')
  @Post('merchants')
  @ApiOperation({ summary: 'Create a merchant in a workspace you own or administer; it starts PENDING_REVIEW.' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: CommerceMerchantResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  createMerchant(@Body() body: CreateMerchantRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new CreateMerchant(principal, body), (id) => new GetMerchant(principal, id));
  }

  @Capability('merchants')
  @Get('merchants')
  @ApiOperation({ summary: 'The merchants of your active workspace (filters: q, status).' })
  @ApiOkResponse({ type: CommerceMerchantPageResponse })
  listMerchants(@Query() query: CommerceQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListMerchants(principal, query));
  }

  @Capability('merchants')
  @Get('merchants/:merchant_uuid')
  @ApiOperation({ summary: 'A merchant: its workspace\'s members and its tenant\'s reviewers read it.' })
  @ApiOkResponse({ type: CommerceMerchantResponse })
  getMerchant(@Param() p: MerchantParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetMerchant(principal, p.merchant_uuid));
  }

  @Capability('merchants', { exposure: 'restricted', stepUp: 'MERCHANT_PROFILE_ACTIVATION' })
  @Post('merchants/:merchant_uuid/activate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Activate a merchant (reviewer, not its creator; step-up MERCHANT_PROFILE_ACTIVATION).' })
  @ApiOkResponse({ type: CommerceMerchantResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  activateMerchant(@Param() p: MerchantParam, @Body() body: ActivateMerchantRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.review(principal, p.merchant_uuid, 'activate', body);
  }

  @Capability('merchants', { exposure: 'restricted', stepUp: 'MERCHANT_PROFILE_ACTIVATION' })
  @Post('merchants/:merchant_uuid/reinstate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reinstate a SUSPENDED merchant (reviewer, not its creator; step-up MERCHANT_PROFILE_ACTIVATION).' })
  @ApiOkResponse({ type: CommerceMerchantResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  reinstateMerchant(@Param() p: MerchantParam, @Body() body: ActivateMerchantRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.review(principal, p.merchant_uuid, 'reinstate', body);
  }

  @Capability('merchants', { exposure: 'restricted' })
  @Post('merchants/:merchant_uuid/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject a merchant pending review (reviewer, not its creator).' })
  @ApiOkResponse({ type: CommerceMerchantResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  rejectMerchant(@Param() p: MerchantParam, @Body() body: MerchantReviewRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.review(principal, p.merchant_uuid, 'reject', body);
  }

  @Capability('merchants', { exposure: 'restricted' })
  @Post('merchants/:merchant_uuid/suspend')
  @HttpCode(200)
  @ApiOperation({ summary: 'Suspend an ACTIVE merchant (reviewer).' })
  @ApiOkResponse({ type: CommerceMerchantResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  suspendMerchant(@Param() p: MerchantParam, @Body() body: MerchantReviewRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.review(principal, p.merchant_uuid, 'suspend', body);
  }

  @Capability('merchants')
  @Post('merchants/:merchant_uuid/close')
  @HttpCode(200)
  @ApiOperation({ summary: 'Close a merchant (its workspace owner or admin, or a reviewer).' })
  @ApiOkResponse({ type: CommerceMerchantResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  closeMerchant(@Param() p: MerchantParam, @Body() body: MerchantReviewRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.review(principal, p.merchant_uuid, 'close', body);
  }

  private review(principal: Principal, merchant_uuid: string, transition: MerchantTransition, body: ActivateMerchantRequest | MerchantReviewRequest): Promise<object> {
    return this.act(new ReviewMerchant(principal, merchant_uuid, transition, body), (id) => new GetMerchant(principal, id));
  }

  // Products ------------------------------------------------------------------------------------------------------

  @Capability('catalogue')
  @Post('merchants/:merchant_uuid/products')
  @ApiOperation({ summary: 'Add a product (DRAFT) to a merchant\'s catalogue.' })
  @ApiCreatedResponse({ type: CommerceProductResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  createProduct(@Param() p: MerchantParam, @Body() body: CreateProductRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new CreateProduct(principal, p.merchant_uuid, body), (id) => new GetProduct(principal, p.merchant_uuid, id));
  }

  @Capability('catalogue')
  @Get('merchants/:merchant_uuid/products')
  @ApiOperation({ summary: 'A merchant\'s catalogue (filters: q, status).' })
  @ApiOkResponse({ type: CommerceProductPageResponse })
  listProducts(@Param() p: MerchantParam, @Query() query: CommerceQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListProducts(principal, p.merchant_uuid, query));
  }

  @Capability('catalogue')
  @Get('merchants/:merchant_uuid/products/:product_uuid')
  @ApiOperation({ summary: 'A product.' })
  @ApiOkResponse({ type: CommerceProductResponse })
  getProduct(@Param() p: MerchantProductParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetProduct(principal, p.merchant_uuid, p.product_uuid));
  }

  @Capability('catalogue')
  @Post('merchants/:merchant_uuid/products/:product_uuid/activate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Activate a DRAFT product (its merchant must be ACTIVE: 422 otherwise).' })
  @ApiOkResponse({ type: CommerceProductResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  activateProduct(@Param() p: MerchantProductParam, @Body() body: ExpectedVersionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new ChangeProduct(principal, p.merchant_uuid, p.product_uuid, 'activate', body.expected_version), (id) => new GetProduct(principal, p.merchant_uuid, id));
  }

  @Capability('catalogue')
  @Post('merchants/:merchant_uuid/products/:product_uuid/archive')
  @HttpCode(200)
  @ApiOperation({ summary: 'Archive a product.' })
  @ApiOkResponse({ type: CommerceProductResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  archiveProduct(@Param() p: MerchantProductParam, @Body() body: ExpectedVersionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new ChangeProduct(principal, p.merchant_uuid, p.product_uuid, 'archive', body.expected_version), (id) => new GetProduct(principal, p.merchant_uuid, id));
  }

  // Invoices ------------------------------------------------------------------------------------------------------

  @Capability('invoices')
  @Post('invoices')
  @ApiOperation({ summary: 'Invoice an order: the total is computed from the lines; the order reference is unique per merchant (409 naming the invoice).' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: CommerceInvoiceResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  createInvoice(@Body() body: CreateInvoiceRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new CreateInvoice(principal, body), (id) => new GetInvoice(principal, id));
  }

  @Capability('invoices')
  @Get('invoices')
  @ApiOperation({ summary: 'A merchant\'s invoices (merchant_uuid required; filters: external_order_reference, status).' })
  @ApiOkResponse({ type: CommerceInvoicePageResponse })
  listInvoices(@Query() query: CommerceQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListInvoices(principal, query));
  }

  @Capability('invoices')
  @Get('invoices/:invoice_uuid')
  @ApiOperation({ summary: 'An invoice.' })
  @ApiOkResponse({ type: CommerceInvoiceResponse })
  getInvoice(@Param() p: InvoiceParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetInvoice(principal, p.invoice_uuid));
  }

  @Capability('invoices', { stepUp: 'COMMERCE_INVOICE_CANCELLATION' })
  @Post('invoices/:invoice_uuid/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel an OPEN invoice (step-up COMMERCE_INVOICE_CANCELLATION); refused while a payment is past AUTHORIZATION_REQUIRED.' })
  @ApiOkResponse({ type: CommerceInvoiceResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  cancelInvoice(@Param() p: InvoiceParam, @Body() body: CancelCommerceInvoiceRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new CancelInvoice(principal, p.invoice_uuid, body), (id) => new GetInvoice(principal, id));
  }

  // Payments ------------------------------------------------------------------------------------------------------

  @Capability('payments')
  @Post('payments')
  @ApiOperation({ summary: 'Start a payment of an OPEN invoice; it waits for the rail\'s authorization (AUTHORIZATION_REQUIRED).' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: CommercePaymentResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  createPayment(@Body() body: CreatePaymentRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new CreatePayment(principal, body), (id) => new GetPayment(principal, id));
  }

  @Capability('payments')
  @Get('payments')
  @ApiOperation({ summary: 'The payments of your active workspace (filters: merchant_uuid, status).' })
  @ApiOkResponse({ type: CommercePaymentPageResponse })
  listPayments(@Query() query: CommerceQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListPayments(principal, query));
  }

  @Capability('payments')
  @Get('payments/:payment_uuid')
  @ApiOperation({ summary: 'A payment.' })
  @ApiOkResponse({ type: CommercePaymentResponse })
  getPayment(@Param() p: PaymentParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetPayment(principal, p.payment_uuid));
  }

  @Capability('payments')
  @Post('payments/:payment_uuid/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a payment still AUTHORIZATION_REQUIRED at its latest version; later rail states are 409.' })
  @ApiOkResponse({ type: CommercePaymentResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  cancelPayment(@Param() p: PaymentParam, @Body() body: CancelPaymentRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new CancelPayment(principal, p.payment_uuid, body), (id) => new GetPayment(principal, id));
  }

  @Capability('payments', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('admin/payments/:payment_uuid/rail')
  @HttpCode(200)
  @ApiOperation({ summary: 'The simulated rail reports a payment\'s move (platform admins): authorize, submit, settle, fail.' })
  @ApiOkResponse({ type: CommercePaymentResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  reportPaymentRail(@Param() p: PaymentParam, @Body() body: PaymentRailRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new ApplyPaymentRailUpdate(principal, p.payment_uuid, body.transition as RailTransition, body.rail_reference ?? null, body.failure_code ?? null), (id) => new GetPayment(principal, id));
  }

  // Wallets -------------------------------------------------------------------------------------------------------

  @Capability('wallets')
  @Post('wallets')
  @ApiOperation({ summary: 'Register a watch-only wallet: OPERATIONAL (a workspace\'s address) or ROTATIONAL (a merchant\'s address pool).' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: CommerceWalletResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  registerWallet(@Body() body: RegisterWalletRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new RegisterWallet(principal, body), (id) => new GetWallet(principal, id));
  }

  @Capability('wallets')
  @Get('wallets')
  @ApiOperation({ summary: 'Wallets on a network (network_id required): OPERATIONAL of your active workspace, or ROTATIONAL of a merchant (merchant_uuid).' })
  @ApiOkResponse({ type: CommerceWalletPageResponse })
  listWallets(@Query() query: CommerceQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListWallets(principal, query));
  }

  @Capability('wallets')
  @Get('wallets/:wallet_uuid')
  @ApiOperation({ summary: 'A wallet.' })
  @ApiOkResponse({ type: CommerceWalletResponse })
  getWallet(@Param() p: WalletParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetWallet(principal, p.wallet_uuid));
  }

  @Capability('wallets')
  @Post('wallets/:wallet_uuid/addresses')
  @HttpCode(200)
  @ApiOperation({ summary: 'Add addresses to a rotational wallet\'s pool (an address is never handed out twice).' })
  @ApiOkResponse({ type: CommerceWalletResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  addWalletAddresses(@Param() p: WalletParam, @Body() body: AddWalletAddressesRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new ChangeWallet(principal, p.wallet_uuid, { kind: 'add', body }), (id) => new GetWallet(principal, id));
  }

  @Capability('wallets')
  @Post('wallets/:wallet_uuid/retire')
  @HttpCode(200)
  @ApiOperation({ summary: 'Retire a wallet: it takes no more payments.' })
  @ApiOkResponse({ type: CommerceWalletResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  retireWallet(@Param() p: WalletParam, @Body() body: ExpectedVersionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new ChangeWallet(principal, p.wallet_uuid, { kind: 'retire', expected_version: body.expected_version }), (id) => new GetWallet(principal, id));
  }

  // Settlement intents --------------------------------------------------------------------------------------------

  @Capability('settlement')
  @Post('settlement-intents')
  @ApiOperation({ summary: 'Request a payout of settled funds; the amount is reserved (422 when the settled balance does not cover it).' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: CommerceSettlementIntentResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  requestSettlement(@Body() body: CreateSettlementIntentRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new RequestSettlement(principal, body), (id) => new GetSettlementIntent(principal, id));
  }

  @Capability('settlement')
  @Get('settlement-intents')
  @ApiOperation({ summary: 'The settlement intents of your active workspace (filters: merchant_uuid, network_id, status).' })
  @ApiOkResponse({ type: CommerceSettlementIntentPageResponse })
  listSettlementIntents(@Query() query: CommerceQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListSettlementIntents(principal, query));
  }

  @Capability('settlement')
  @Get('settlement-intents/:settlement_intent_uuid')
  @ApiOperation({ summary: 'A settlement intent, with its latest request_commitment.' })
  @ApiOkResponse({ type: CommerceSettlementIntentResponse })
  getSettlementIntent(@Param() p: SettlementIntentParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetSettlementIntent(principal, p.settlement_intent_uuid));
  }

  @Capability('settlement')
  @Post('settlement-intents/:settlement_intent_uuid/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a REQUESTED or APPROVED settlement intent, naming its network and latest request_commitment.' })
  @ApiOkResponse({ type: CommerceSettlementIntentResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  cancelSettlementIntent(@Param() p: SettlementIntentParam, @Body() body: CancelSettlementIntentRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new CancelSettlement(principal, p.settlement_intent_uuid, body), (id) => new GetSettlementIntent(principal, id));
  }

  @Capability('settlement', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('admin/settlement-intents/:settlement_intent_uuid/treasury')
  @HttpCode(200)
  @ApiOperation({ summary: 'The treasury and the simulated rail move a settlement intent (platform admins): approve, submit, confirm, fail.' })
  @ApiOkResponse({ type: CommerceSettlementIntentResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  reportSettlementTreasury(@Param() p: SettlementIntentParam, @Body() body: SettlementTreasuryRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(
      new ApplyTreasuryUpdate(principal, p.settlement_intent_uuid, body.transition as TreasuryTransition, body.transaction_reference ?? null, body.failure_code ?? null),
      (id) => new GetSettlementIntent(principal, id),
    );
  }
}
