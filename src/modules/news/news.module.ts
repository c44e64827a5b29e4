/** News administration: a tenant's articles, drafted, scheduled, published and archived (docs/news.md). */
import { Module } from '@nestjs/common';
import { ChangeNewsArticleHandler, DraftNewsArticleHandler } from './commands';
import { NewsAccess } from './news-access';
import { NewsController } from './news.controller';
import { NewsPublishSchedule } from './publish-schedule';
import { GetNewsArticleHandler, ListNewsArticlesHandler } from './queries';
// The privacy class of every field of this module's events (docs/privacy.md), registered when the module loads.
import './domain/privacy';
// The module's application in the capability registry (docs/capabilities.md), declared when the module loads.
import './capabilities';

@Module({
  controllers: [NewsController],
  providers: [NewsAccess, NewsPublishSchedule, DraftNewsArticleHandler, ChangeNewsArticleHandler, GetNewsArticleHandler, ListNewsArticlesHandler],
  exports: [NewsPublishSchedule],
})
export class NewsModule {}
