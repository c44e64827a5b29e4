/**
 * Requests of the news administration routes: the seeds' AdminNewsListQuery (no extra fields) and ours. Every
 * request refuses fields it does not know; a transition pins the version the caller read (`expected_version`).
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsISO8601, IsString, Length, Matches, MaxLength, Min } from 'class-validator';
import { hex32Param } from '../../../platform/http/api-properties';
import { NoExtraFields, Optional } from '../../../platform/http/validation';
import { ARTICLE_STATUSES } from '../domain/article';

export const NEWS_PAGE = { default: 50, max: 200, min: 0 };
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const EXPECTED_VERSION = 'The version you read; the change fails (409 VERSION_CONFLICT, with current_version) if it changed since.';

export class ArticleParam {
  @ApiProperty(hex32Param('The article')) @Matches(/^[0-9a-f]{32}$/, { message: 'article_uuid must be 32 lowercase hex characters' })
  article_uuid!: string;
}

/** The seeds' AdminNewsListQuery: the caller's tenant's articles, newest first. */
@NoExtraFields({ query: true })
export class AdminNewsListQuery {
  @ApiPropertyOptional({ description: 'Opaque; valid only for the filters it was issued for.' }) @Optional() @IsString() @MaxLength(512)
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 0, maximum: 200, default: 50, description: '0 answers no items (a probe of access and filters).', example: 50 })
  @Optional() @Matches(/^\d{1,4}$/, { message: 'limit must be a non-negative integer' })
  limit?: string;

  @ApiPropertyOptional({ maxLength: 200, description: 'Case-insensitive, over title, summary and slug.' }) @Optional() @IsString() @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ enum: ARTICLE_STATUSES }) @Optional() @IsIn(ARTICLE_STATUSES)
  status?: string;
}

@NoExtraFields()
export class DraftNewsArticleRequest {
  @ApiProperty({ pattern: SLUG.source, maxLength: 120, example: 'maintenance-window-december' }) @Matches(SLUG, { message: 'slug must be lowercase words joined by -' }) @MaxLength(120)
  slug!: string;

  @ApiProperty({ minLength: 1, maxLength: 200 }) @IsString() @Length(1, 200)
  title!: string;

  @ApiProperty({ maxLength: 1000 }) @IsString() @MaxLength(1000)
  summary!: string;

  @ApiProperty({ maxLength: 100_000, description: 'The article text (Markdown).' }) @IsString() @MaxLength(100_000)
  body!: string;

  @ApiPropertyOptional({ default: false, description: 'Publishing puts it in the notification inbox of every person of the tenant.' }) @Optional() @IsBoolean()
  notify_readers?: boolean;
}

@NoExtraFields()
export class ReviseNewsArticleRequest {
  @ApiProperty({ type: 'integer', minimum: 0, description: EXPECTED_VERSION }) @IsInt() @Min(0)
  expected_version!: number;

  @ApiPropertyOptional({ pattern: SLUG.source, maxLength: 120 }) @Optional() @Matches(SLUG, { message: 'slug must be lowercase words joined by -' }) @MaxLength(120)
  slug?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200 }) @Optional() @IsString() @Length(1, 200)
  title?: string;

  @ApiPropertyOptional({ maxLength: 1000 }) @Optional() @IsString() @MaxLength(1000)
  summary?: string;

  @ApiPropertyOptional({ maxLength: 100_000 }) @Optional() @IsString() @MaxLength(100_000)
  body?: string;

  @ApiPropertyOptional() @Optional() @IsBoolean()
  notify_readers?: boolean;
}

@NoExtraFields()
export class ScheduleNewsArticleRequest {
  @ApiProperty({ type: 'integer', minimum: 0, description: EXPECTED_VERSION }) @IsInt() @Min(0)
  expected_version!: number;

  @ApiProperty({ format: 'date-time', description: 'When the scheduler publishes it (in the future).' })
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'publish_at must be an RFC 3339 date-time' })
  publish_at!: string;
}

@NoExtraFields()
export class NewsTransitionRequest {
  @ApiProperty({ type: 'integer', minimum: 0, description: EXPECTED_VERSION }) @IsInt() @Min(0)
  expected_version!: number;
}
