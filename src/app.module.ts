import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { LoggerModule } from 'nestjs-pino';
import { READ_MODELS } from '../projections';
import type { PlatformConfig } from './platform/config/platform-config';
import { loggerParams } from './platform/logging/logger.config';
import { PlatformModule } from './platform/platform.module';
import type { ReadModelDefinition } from './platform/read-model/read-model.definition';

export interface AppModuleOptions {
  config: PlatformConfig;
  /** Read models beyond the platform's own (tests add their test-only aggregate's). */
  readModels?: ReadModelDefinition[];
  modules?: ModuleMetadata['imports'];
  logStream?: NodeJS.WritableStream;
}

/** Business modules join here as they land (identity, trading, ai-wallets, …). */
const MODULES: NonNullable<ModuleMetadata['imports']> = [];

@Module({})
export class AppModule {
  static forRoot(options: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(loggerParams(options.config.logLevel, options.logStream)),
        CqrsModule.forRoot(),
        PlatformModule.forRoot({ config: options.config, readModels: [...READ_MODELS, ...(options.readModels ?? [])] }),
        ...MODULES,
        ...(options.modules ?? []),
      ],
    };
  }
}
