/** Answers of the news administration routes: NewsPublicationSummary (fields ours: the seeds leave them open), the article, the seeds' AdminNewsArticlePage. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { HEX32_ID } from '../../../platform/http/api-properties';
import { ARTICLE_STATUSES } from '../domain/article';

const TIME = { format: 'date-time' } as const;
const NULLABLE_TIME = { type: String, nullable: true, format: 'date-time' } as const;

export class NewsPublicationSummary {
  @ApiProperty(HEX32_ID) article_uuid!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty() slug!: string;
  @ApiProperty() title!: string;
  @ApiProperty() summary!: string;
  @ApiProperty({ enum: ARTICLE_STATUSES }) status!: string;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) version!: number;
  @ApiProperty(HEX32_ID) author_profile_uuid!: string;
  @ApiProperty({ ...NULLABLE_TIME, description: 'SCHEDULED: when it is published.' }) publish_at!: string | null;
  @ApiProperty({ ...NULLABLE_TIME, description: 'When it was last published (kept while PUBLISHED).' }) published_at!: string | null;
  @ApiProperty({ description: 'PUBLISHED with revisions readers do not see yet.' }) has_unpublished_changes!: boolean;
  @ApiProperty() notify_readers!: boolean;
  @ApiProperty(TIME) created_at!: string;
  @ApiProperty(TIME) updated_at!: string;
}

export class NewsArticleText {
  @ApiProperty() slug!: string;
  @ApiProperty() title!: string;
  @ApiProperty() summary!: string;
  @ApiProperty() body!: string;
}

export class NewsArticle extends NewsPublicationSummary {
  @ApiProperty({ description: 'The current text (what the next publish shows).' }) body!: string;
  @ApiProperty({ type: NewsArticleText, nullable: true, description: 'What readers see now (PUBLISHED), or null.' }) published!: NewsArticleText | null;
}

export class AdminNewsArticlePage {
  @ApiProperty({ type: [NewsPublicationSummary] }) items!: NewsPublicationSummary[];
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0 }) limit!: number;
  @ApiPropertyOptional({ description: 'Opaque; omitted when the list is complete.' }) next_cursor?: string;
}

export class NewsCommandReceipt {
  @ApiProperty({ ...HEX32_ID, description: 'The article the command created or changed.' }) id!: string;
}
