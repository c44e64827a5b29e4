/**
 * Asset collections (`/api/v1/asset-collections`, PLATFORM.md section 6): the public listing of ACTIVE collections
 * (no token needed; a platform admin's token lists the other statuses too) and the platform admins' registration and
 * lifecycle. A command's answer is the collection read back (read-your-writes), or 202 with its id.
 */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, PlatformAdminOnly, OptionalPrincipal, type Principal } from '../../platform/auth/principal';
import { CommandAnswers } from '../../platform/http/command-answers';
import { ApiPendingReadBack } from '../../platform/http/openapi';
import { Public } from '../../platform/http/public.decorator';
import { ChangeAssetCollection, RegisterAssetCollection } from './commands';
import type { CollectionTransition } from './domain/collection';
import { AssetCollectionQuery, CollectionParam, CollectionTransitionRequest, RegisterAssetCollectionRequest } from './dto/asset-collections.dto';
import { AssetCollection, AssetCollectionPage, AssetCollectionReceipt } from './dto/responses.dto';
import { GetAssetCollection, ListAssetCollections } from './queries';

@ApiTags('asset-collections')
@Controller('api/v1/asset-collections')
export class AssetCollectionsController {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly answers: CommandAnswers,
  ) {}

  private move(principal: Principal, id: string, transition: CollectionTransition, body: CollectionTransitionRequest): Promise<object> {
    return this.answers.act(new ChangeAssetCollection(principal, id, transition, body.expected_version), (cid) => new GetAssetCollection(principal, cid));
  }

  @Capability('collections')
  @Get()
  @Public()
  @ApiOperation({ summary: 'The catalogue of ACTIVE collections (AssetCollectionQuery → AssetCollectionPage); platform admins may list other statuses.' })
  @ApiOkResponse({ type: AssetCollectionPage })
  listAssetCollections(@Query() query: AssetCollectionQuery, @OptionalPrincipal() principal: Principal | null): Promise<object> {
    return this.queryBus.execute(new ListAssetCollections(principal, query));
  }

  @Capability('collections')
  @Get(':collection_uuid')
  @Public()
  @ApiOperation({ summary: 'One ACTIVE collection with its metadata (platform admins: any status).' })
  @ApiOkResponse({ type: AssetCollection })
  getAssetCollection(@Param() p: CollectionParam, @OptionalPrincipal() principal: Principal | null): Promise<object> {
    return this.queryBus.execute(new GetAssetCollection(principal, p.collection_uuid));
  }

  @Capability('collections', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post()
  @ApiOperation({ summary: 'Register a collection (platform admins): DRAFT, with its metadata and metadata_hash.' })
  @ApiCreatedResponse({ type: AssetCollection })
  @ApiPendingReadBack(AssetCollectionReceipt)
  registerAssetCollection(@Body() body: RegisterAssetCollectionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.answers.act(new RegisterAssetCollection(principal, body), (id) => new GetAssetCollection(principal, id));
  }

  @Capability('collections', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post(':collection_uuid/activate')
  @HttpCode(200)
  @ApiOperation({ summary: 'DRAFT → ACTIVE (platform admins): admitted to the listing.' })
  @ApiOkResponse({ type: AssetCollection })
  @ApiPendingReadBack(AssetCollectionReceipt)
  activateAssetCollection(@Param() p: CollectionParam, @Body() body: CollectionTransitionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.move(principal, p.collection_uuid, 'activate', body);
  }

  @Capability('collections', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post(':collection_uuid/suspend')
  @HttpCode(200)
  @ApiOperation({ summary: 'ACTIVE → SUSPENDED (platform admins): out of the listing.' })
  @ApiOkResponse({ type: AssetCollection })
  @ApiPendingReadBack(AssetCollectionReceipt)
  suspendAssetCollection(@Param() p: CollectionParam, @Body() body: CollectionTransitionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.move(principal, p.collection_uuid, 'suspend', body);
  }

  @Capability('collections', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post(':collection_uuid/reinstate')
  @HttpCode(200)
  @ApiOperation({ summary: 'SUSPENDED → ACTIVE (platform admins).' })
  @ApiOkResponse({ type: AssetCollection })
  @ApiPendingReadBack(AssetCollectionReceipt)
  reinstateAssetCollection(@Param() p: CollectionParam, @Body() body: CollectionTransitionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.move(principal, p.collection_uuid, 'reinstate', body);
  }

  @Capability('collections', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post(':collection_uuid/retire')
  @HttpCode(200)
  @ApiOperation({ summary: 'SUSPENDED → RETIRED (platform admins); final.' })
  @ApiOkResponse({ type: AssetCollection })
  @ApiPendingReadBack(AssetCollectionReceipt)
  retireAssetCollection(@Param() p: CollectionParam, @Body() body: CollectionTransitionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.move(principal, p.collection_uuid, 'retire', body);
  }
}
