import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { AgenticMemoryModule } from './modules/agentic-memory/agentic-memory.module';
import { AiWalletsModule } from './modules/ai-wallets/ai-wallets.module';
import { ArenaModule } from './modules/arena/arena.module';
import { AssetCollectionsModule } from './modules/asset-collections/asset-collections.module';
import { AuditModule } from './modules/audit/audit.module';
import { CapabilitiesModule } from './modules/capabilities/capabilities.module';
import { BillingModule } from './modules/billing/billing.module';
import { CommerceModule } from './modules/commerce/commerce.module';
import { IdentityModule } from './modules/identity/identity.module';
import { NewsModule } from './modules/news/news.module';
import { NotificationsModule } from './modules/notifications/notifications.module';
import { TradingModule } from './modules/trading/trading.module';
import { PlatformAuthGuard } from './platform/auth/auth.guard';
import { LoggerModule } from 'nestjs-pino';
import { READ_MODELS } from '../projections';
import { validateEnvironment, type PlatformConfig } from './platform/config/platform-config';
import { loggerParams } from './platform/logging/logger.config';
import type { Logger } from 'pino';
import { PlatformModule } from './platform/platform.module';
import type { Clock } from './platform/clock';
import type { ThreadExtras } from './platform/workers/worker-threads.service';
import type { ReadModelDefinition } from './platform/read-model/read-model.definition';

export interface AppModuleOptions {
  config: PlatformConfig;
  /** Read models beyond the platform's own (tests add their test-only aggregate's). */
  readModels?: ReadModelDefinition[];
  modules?: ModuleMetadata['imports'];
  logStream?: NodeJS.WritableStream;
  /** A test's clock (PlatformModule provides the system clock otherwise). */
  clock?: Clock;
  /** `modules` and `readModels` again, by file, for the worker threads (WORKER_THREADS) to load. */
  threadExtras?: ThreadExtras;
}

/** Business modules join here as they land (identity, trading, ai-wallets, …). */
const MODULES: NonNullable<ModuleMetadata['imports']> = [IdentityModule, TradingModule, AiWalletsModule, AgenticMemoryModule, CommerceModule, BillingModule, NewsModule, AssetCollectionsModule, ArenaModule, NotificationsModule, AuditModule, CapabilitiesModule];

@Module({})
export class AppModule {
  static forRoot(options: AppModuleOptions & { logger: Logger }): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // @nestjs/config validates the process environment with the same schema main.ts applied, and carries the
        // resolved PlatformConfig (which tests build from their own values) to every module.
        ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, cache: true, validate: validateEnvironment, load: [() => ({ platform: options.config })] }),
        LoggerModule.forRoot(loggerParams(options.logger)),
        CqrsModule.forRoot(),
        PlatformModule.forRoot({ config: options.config, readModels: [...READ_MODELS, ...(options.readModels ?? [])], clock: options.clock, logStream: options.logStream, threadExtras: options.threadExtras }),
        ...MODULES,
        ...(options.modules ?? []),
      ],
      // Every route needs a live bearer token unless marked @Public().
      providers: [{ provide: APP_GUARD, useClass: PlatformAuthGuard }],
    };
  }
}
