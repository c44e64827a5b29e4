/**
 * Billing routes (`/api/v1/billing/…`, PLATFORM.md section 6: account, products, usage, subscriptions, top-ups,
 * adjustments). A command's answer is its record read back once the read models hold the command's writes
 * (read-your-writes); if they have not caught up in time, 202 with the record's id.
 */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, PlatformAdminOnly, type Principal } from '../../platform/auth/principal';
import { TenantRoleRequired } from '../../platform/auth/tenant-role';
import { CommandAnswers } from '../../platform/http/command-answers';
import { ApiErrors, ApiPendingReadBack } from '../../platform/http/openapi';
import { MANAGING_ROLES } from './billing-access';
import { AdjustCredits, CancelSubscription, DefineBillingProduct, ReportTopupPayment, RequestTopup, RetireBillingProduct, StartSubscription } from './commands';
import {
  BillingAdjustmentRequest, BillingListQuery, BillingScopeQuery, BillingTenantRequest, BillingUsageQuery, DefineBillingProductRequest, ProductCodeParam, RequestBillingTopupRequest,
  StartBillingSubscriptionRequest, TopupParam, BillingTopupRailReport,
} from './dto/billing.dto';
import {
  BillingAccountResponse, BillingAdjustmentPageResponse, BillingAdjustmentResponse, BillingCommandReceipt, BillingProductCatalogResponse, BillingProductResponse, BillingSubscriptionListResponse,
  BillingSubscriptionResponse, BillingTopupPageResponse, BillingTopupResponse, BillingUsageResponse,
} from './dto/responses.dto';
import {
  GetBillingAccount, GetBillingAdjustment, GetBillingCatalog, GetBillingProduct, GetBillingSubscription, GetBillingTopup, GetBillingUsage, ListBillingAdjustments, ListBillingSubscriptions,
  ListBillingTopups,
} from './queries';

@ApiTags('billing')
@Controller('api/v1/billing')
export class BillingController {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly answers: CommandAnswers,
  ) {}

  @Capability('accounts')
  @Get('account')
  @ApiOperation({ summary: 'Your billing account: your tenant\'s, or in the global tenant your own; credits by pool, the period, usage rated so far, subscriptions (tenant_uuid: another tenant you hold a role in).' })
  @ApiErrors(404)
  @ApiOkResponse({ type: BillingAccountResponse })
  getBillingAccount(@Query() query: BillingScopeQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetBillingAccount(principal, query));
  }

  @Capability('accounts')
  @Get('usage')
  @ApiOperation({ summary: 'A period\'s usage rated from the event log, with its reconciliation (checked, posted, pending).' })
  @ApiErrors(404)
  @ApiOkResponse({ type: BillingUsageResponse })
  getBillingUsage(@Query() query: BillingUsageQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetBillingUsage(principal, query));
  }

  // Products ------------------------------------------------------------------------------------------------------

  @Capability('products')
  @Get('products')
  @ApiOperation({ summary: 'The product catalogue: plans, top-ups, the free allowance every account gets, the currency.' })
  @ApiOkResponse({ type: BillingProductCatalogResponse })
  getBillingCatalog(): Promise<object> {
    return this.queryBus.execute(new GetBillingCatalog());
  }

  @Capability('products')
  @Get('products/:code')
  @ApiOperation({ summary: 'One product (also a retired one).' })
  @ApiOkResponse({ type: BillingProductResponse })
  getBillingProduct(@Param() p: ProductCodeParam): Promise<object> {
    return this.queryBus.execute(new GetBillingProduct(p.code));
  }

  @Capability('products', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('products')
  @ApiOperation({ summary: 'Define a product (platform admins): a PLAN granting credits every interval, or a TOPUP of non-expiring credits.' })
  @ApiCreatedResponse({ type: BillingProductResponse })
  @ApiPendingReadBack(BillingCommandReceipt)
  defineBillingProduct(@Body() body: DefineBillingProductRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.answers.act(new DefineBillingProduct(principal, body), (code) => new GetBillingProduct(code));
  }

  @Capability('products', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('products/:code/retire')
  @HttpCode(200)
  @ApiOperation({ summary: 'Stop selling a product (platform admins); running subscriptions keep it until cancelled.' })
  @ApiOkResponse({ type: BillingProductResponse })
  @ApiPendingReadBack(BillingCommandReceipt)
  retireBillingProduct(@Param() p: ProductCodeParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.answers.act(new RetireBillingProduct(principal, p.code), (code) => new GetBillingProduct(code));
  }

  // Subscriptions -------------------------------------------------------------------------------------------------

  @Capability('subscriptions')
  @Get('subscriptions')
  @ApiOperation({ summary: 'Your tenant\'s subscriptions.' })
  @ApiErrors(404)
  @ApiOkResponse({ type: BillingSubscriptionListResponse })
  listBillingSubscriptions(@Query() query: BillingScopeQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListBillingSubscriptions(principal, query));
  }

  @Capability('subscriptions')
  @TenantRoleRequired(MANAGING_ROLES, { tenant: 'any', globalTenantPeople: true })
  @Post('subscriptions')
  @ApiOperation({ summary: 'Subscribe to a plan (tenant owner or admin): its credits are granted now and at every period boundary until cancelled.' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: BillingSubscriptionResponse })
  @ApiPendingReadBack(BillingCommandReceipt)
  startBillingSubscription(@Body() body: StartBillingSubscriptionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.answers.act(new StartSubscription(principal, body), (code) => new GetBillingSubscription(principal, body, code));
  }

  @Capability('subscriptions')
  @TenantRoleRequired(MANAGING_ROLES, { tenant: 'any', globalTenantPeople: true })
  @Post('subscriptions/:code/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a subscription at the end of the period (tenant owner or admin); its credits last until then.' })
  @ApiOkResponse({ type: BillingSubscriptionResponse })
  @ApiPendingReadBack(BillingCommandReceipt)
  cancelBillingSubscription(@Param() p: ProductCodeParam, @Body() body: BillingTenantRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.answers.act(new CancelSubscription(principal, p.code, body), (code) => new GetBillingSubscription(principal, body, code));
  }

  // Top-ups -------------------------------------------------------------------------------------------------------

  @Capability('top-ups')
  @Get('topups')
  @ApiOperation({ summary: 'Your tenant\'s top-ups, newest first.' })
  @ApiErrors(404)
  @ApiOkResponse({ type: BillingTopupPageResponse })
  listBillingTopups(@Query() query: BillingListQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListBillingTopups(principal, query));
  }

  @Capability('top-ups')
  @Get('topups/:topup_id')
  @ApiOperation({ summary: 'One top-up.' })
  @ApiOkResponse({ type: BillingTopupResponse })
  getBillingTopup(@Param() p: TopupParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetBillingTopup(principal, p.topup_id));
  }

  @Capability('top-ups')
  @TenantRoleRequired(MANAGING_ROLES, { tenant: 'any', globalTenantPeople: true })
  @Post('topups')
  @ApiOperation({ summary: 'Buy a top-up (tenant owner or admin): PENDING until the payment rail reports it SETTLED, when its credits are granted.' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: BillingTopupResponse })
  @ApiPendingReadBack(BillingCommandReceipt)
  requestBillingTopup(@Body() body: RequestBillingTopupRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.answers.act(new RequestTopup(principal, body), (id) => new GetBillingTopup(principal, id));
  }

  @Capability('top-ups', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('admin/topups/:topup_id/rail')
  @HttpCode(200)
  @ApiOperation({ summary: 'The payment rail\'s report on a top-up (platform admins; the simulated rail\'s callback): SETTLED, FAILED or REVERSED.' })
  @ApiOkResponse({ type: BillingTopupResponse })
  @ApiPendingReadBack(BillingCommandReceipt)
  reportBillingTopupPayment(@Param() p: TopupParam, @Body() body: BillingTopupRailReport, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.answers.act(new ReportTopupPayment(principal, p.topup_id, body), (id) => new GetBillingTopup(principal, id));
  }

  // Adjustments ---------------------------------------------------------------------------------------------------

  @Capability('adjustments')
  @Get('adjustments')
  @ApiOperation({ summary: 'Your tenant\'s adjustments, newest first.' })
  @ApiErrors(404)
  @ApiOkResponse({ type: BillingAdjustmentPageResponse })
  listBillingAdjustments(@Query() query: BillingListQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListBillingAdjustments(principal, query));
  }

  @Capability('adjustments', { exposure: 'restricted' })
  @TenantRoleRequired(MANAGING_ROLES, { tenant: 'any' })
  @Post('adjustments')
  @ApiOperation({ summary: 'Grant (CREDIT, optionally expiring) or take (DEBIT) credits by hand, with a reason (tenant owner or admin, platform admins).' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: BillingAdjustmentResponse })
  @ApiPendingReadBack(BillingCommandReceipt)
  adjustBillingCredits(@Body() body: BillingAdjustmentRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.answers.act(new AdjustCredits(principal, body), (id) => new GetBillingAdjustment(principal, id));
  }
}
