/**
 * HTTP, commands and queries of the test-only ledger: the platform's conventions exercised end to end exactly as
 * a business module will use them (CommandBus → CommandExecutor → EventStore; QueryBus → read model).
 */
import { Capability } from '../../../src/platform/capabilities/capability';
import { Body, Controller, Get, HttpCode, Inject, Module, Param, Post, Query } from '@nestjs/common';
import { CommandBus, CommandHandler, QueryBus, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Length, Matches, Min } from 'class-validator';
import { CommandExecutor } from '../../../src/platform/command/command-executor';
import { nextId } from '../../../src/platform/context/request-context';
import { NotFound } from '../../../src/platform/errors';
import { keysetPage, PageQuery, pageLimit } from '../../../src/platform/http/pagination';
import { IsDecimalString, NoExtraFields } from '../../../src/platform/http/validation';
import { ReadModelDatabase } from '../../../src/platform/read-model/read-model.datasource';
import { Public } from '../../../src/platform/http/public.decorator';
import { CurrentPrincipal, STEP_UP_VERIFIER, type Principal, type StepUpVerifier } from '../../../src/platform/auth/principal';
import { ledgerDecider, ledgerStream } from './ledger.domain';
import { TestLedgerBalance } from './ledger.read-model';
import { declareApplication } from '../../../src/platform/capabilities/capability';

declareApplication({
  name: 'test-ledger', group: 'Tests', order: 99, owners: ['tests'], description: 'A test-only module exercising the platform.', purpose: 'Tests.', audiences: ['tests'], businessCases: [], workflow: [],
  prerequisites: [], agentGuidance: [], relatedApplications: [], capabilities: { ledgers: { whenToUse: 'Only in tests.' } },
});

export class OpenLedgerRequest {
  @ApiProperty() @IsString() @Length(1, 200)
  owner!: string;
}

@NoExtraFields()
export class CreditLedgerRequest {
  @ApiProperty({ example: '100' }) @IsDecimalString({ positive: true, maxFractionDigits: 0 })
  amount!: string;

  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0)
  expected_version?: number;
}

/** A debit that needs a step-up, as commerce's step-up routes will: the token travels in the validated body. */
@NoExtraFields()
export class SensitiveDebitRequest {
  @ApiProperty({ example: '100' }) @IsDecimalString({ positive: true, maxFractionDigits: 0 })
  amount!: string;

  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0)
  expected_version?: number;

  @ApiProperty() @IsString()
  step_up_token!: string;
}

export class LedgerIdParam {
  @ApiProperty({ description: 'The ledger (32 lowercase hex characters).', pattern: '^[0-9a-f]{32}$' })
  @Matches(/^[0-9a-f]{32}$/, { message: 'ledger_id must be 32 lowercase hex characters' })
  ledger_id!: string;
}

export class OpenLedger {
  constructor(readonly owner: string) {}
}
export class CreditLedger {
  constructor(readonly ledger_id: string, readonly amount: string, readonly expected_version?: number) {}
}
export class DebitLedgerWithStepUp {
  constructor(readonly principal: Principal, readonly ledger_id: string, readonly request: SensitiveDebitRequest) {}
}
export class GetLedger {
  constructor(readonly ledger_id: string) {}
}
export class ListLedgers {
  constructor(readonly limit: number, readonly cursor?: string) {}
}

interface LedgerView {
  ledger_id: string;
  owner: string;
  balance: string;
  version: number;
}

const view = (row: TestLedgerBalance): LedgerView => ({ ledger_id: row.ledger_id, owner: row.owner, balance: row.balance, version: row.version });

@CommandHandler(OpenLedger)
export class OpenLedgerHandler implements ICommandHandler<OpenLedger, LedgerView> {
  constructor(private readonly commands: CommandExecutor) {}
  async execute(command: OpenLedger): Promise<LedgerView> {
    const ledger_id = nextId();
    const outcome = await this.commands.execute(ledgerStream(ledger_id), ledgerDecider, { kind: 'OpenLedger', ledger_id, owner: command.owner });
    return { ledger_id, owner: command.owner, balance: outcome.state.balance.toString(), version: Number(outcome.version) };
  }
}

@CommandHandler(CreditLedger)
export class CreditLedgerHandler implements ICommandHandler<CreditLedger, LedgerView> {
  constructor(private readonly commands: CommandExecutor) {}
  async execute(c: CreditLedger): Promise<LedgerView> {
    const { state } = await this.commands.load(ledgerStream(c.ledger_id), ledgerDecider);
    if (!state.opened) throw new NotFound('No such ledger.');
    const outcome = await this.commands.execute(
      ledgerStream(c.ledger_id),
      ledgerDecider,
      { kind: 'CreditLedger', ledger_id: c.ledger_id, amount: c.amount },
      { expectedVersion: c.expected_version === undefined ? undefined : BigInt(c.expected_version) },
    );
    return { ledger_id: c.ledger_id, owner: String(state.owner), balance: outcome.state.balance.toString(), version: Number(outcome.version) };
  }
}

/** The step-up pattern every module follows: authorize (read only), then execute with the spend. */
@CommandHandler(DebitLedgerWithStepUp)
export class DebitLedgerWithStepUpHandler implements ICommandHandler<DebitLedgerWithStepUp, LedgerView> {
  constructor(
    private readonly commands: CommandExecutor,
    @Inject(STEP_UP_VERIFIER) private readonly stepUp: StepUpVerifier,
  ) {}
  async execute({ principal, ledger_id, request }: DebitLedgerWithStepUp): Promise<LedgerView> {
    const spend = await this.stepUp.authorize(request.step_up_token, 'MERCHANT_PROFILE_ACTIVATION', principal);
    const { state } = await this.commands.load(ledgerStream(ledger_id), ledgerDecider);
    if (!state.opened) throw new NotFound('No such ledger.');
    const outcome = await this.commands.execute(
      ledgerStream(ledger_id),
      ledgerDecider,
      { kind: 'DebitLedger', ledger_id, amount: request.amount },
      { expectedVersion: request.expected_version === undefined ? undefined : BigInt(request.expected_version), spend },
    );
    return { ledger_id, owner: String(state.owner), balance: outcome.state.balance.toString(), version: Number(outcome.version) };
  }
}

@QueryHandler(GetLedger)
export class GetLedgerHandler implements IQueryHandler<GetLedger, LedgerView> {
  constructor(private readonly db: ReadModelDatabase) {}
  async execute(q: GetLedger): Promise<LedgerView> {
    const row = await this.db.reader.getRepository(TestLedgerBalance).findOneBy({ ledger_id: q.ledger_id });
    if (!row) throw new NotFound('No such ledger.');
    return view(row);
  }
}

@QueryHandler(ListLedgers)
export class ListLedgersHandler implements IQueryHandler<ListLedgers, { items: LedgerView[]; next_cursor?: string }> {
  constructor(private readonly db: ReadModelDatabase) {}
  async execute(q: ListLedgers): Promise<{ items: LedgerView[]; next_cursor?: string }> {
    const qb = this.db.reader.getRepository(TestLedgerBalance).createQueryBuilder('l');
    const page = await keysetPage(qb, [{ column: 'l.updated_at', property: 'updated_at' }, { column: 'l.ledger_id', property: 'ledger_id' }], 'DESC', q.limit, q.cursor);
    return { items: page.items.map(view), ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}) };
  }
}

@Public()
@ApiTags('test-ledger')
@Controller('api/v1/test-ledgers')
export class TestLedgerController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Capability('ledgers')
  @Post()
  open(@Body() body: OpenLedgerRequest): Promise<LedgerView> {
    return this.commandBus.execute(new OpenLedger(body.owner));
  }

  @Capability('ledgers')
  @Post(':ledger_id/credits')
  @HttpCode(200)
  credit(@Param() params: LedgerIdParam, @Body() body: CreditLedgerRequest): Promise<LedgerView> {
    return this.commandBus.execute(new CreditLedger(params.ledger_id, body.amount, body.expected_version));
  }

  @Capability('ledgers')
  @Get(':ledger_id')
  get(@Param() params: LedgerIdParam): Promise<LedgerView> {
    return this.queryBus.execute(new GetLedger(params.ledger_id));
  }

  @Capability('ledgers')
  @Get()
  list(@Query() query: PageQuery): Promise<{ items: LedgerView[]; next_cursor?: string }> {
    return this.queryBus.execute(new ListLedgers(pageLimit(query.limit, { default: 20, max: 100 }), query.cursor));
  }
}

/** A sensitive test-only operation: proves the step-up mechanism as other modules will use it. */
@ApiTags('test-ledger')
@Controller('api/v1/test-sensitive')
export class TestSensitiveController {
  constructor(private readonly commandBus: CommandBus) {}

  @Capability('ledgers')
  @Post('ledgers/:ledger_id/debits')
  @HttpCode(200)
  debit(@Param() params: LedgerIdParam, @Body() body: SensitiveDebitRequest, @CurrentPrincipal() principal: Principal): Promise<LedgerView> {
    return this.commandBus.execute(new DebitLedgerWithStepUp(principal, params.ledger_id, body));
  }
}

/** A route that fails the way a bug would, to prove a 500 leaks nothing. */
@Public()
@ApiTags('test-ledger')
@Controller('api/v1/test-failures')
export class TestFailureController {
  @Capability('ledgers')
  @Post('internal')
  internal(): never {
    throw new Error('SQLITE_ERROR: near "SELECT password_hash FROM accounts": syntax error');
  }
}

@Module({
  controllers: [TestLedgerController, TestFailureController, TestSensitiveController],
  providers: [OpenLedgerHandler, CreditLedgerHandler, DebitLedgerWithStepUpHandler, GetLedgerHandler, ListLedgersHandler],
})
export class TestLedgerModule {}
