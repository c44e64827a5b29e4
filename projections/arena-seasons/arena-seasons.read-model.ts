/**
 * Arena seasons and their leaderboards (docs/arena.md), one projection: the seasons of each tenant, each
 * participant's standing (realised P&L per market with exact decimals, trade count, markets traded), and the market
 * symbols (from trading's MarketListed). A trade counts for a participant of a LIVE season — between the season's
 * ArenaSeasonStarted and ArenaSeasonSettling events in log order — on one of its markets, until the participant is
 * disqualified. Once the Settling event is folded the standings are frozen: they are exact at the season's end position.
 */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import { insertRecord, patchRecord, readRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { SeasonEvent, SeasonStatus } from '../../src/modules/arena/domain/season';
import { sidesOf, withFill, type MarketListed, type StandingRecord, type TradeExecutedData } from '../../src/modules/arena/domain/standing';
import { publishedSeason, type SeasonRecord } from './season-view';
import { createOutboxTable, dropOutboxTable, ProjectionOutbox, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';

export type { StandingRecord, SeasonRecord };
export const SEASONS: JsonRecordTable<SeasonRecord> = { table: 'arena_seasons', key: 'season_uuid', columns: ['tenant_uuid', 'status', 'starts_at', 'ends_at'] };

export class ArenaSeasons1764000012000 implements MigrationInterface {
  name = 'ArenaSeasons1764000012000';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string) => ({ name, type: 'varchar', length });
    await q.createTable(
      new Table({
        name: 'arena_seasons',
        columns: [{ ...text('season_uuid', '32'), isPrimary: true }, text('tenant_uuid', '32'), text('status', '16'), text('starts_at', '32'), text('ends_at', '32'), text('position', '20'), { name: 'record', type: 'text' }],
        indices: [
          { name: 'idx_arena_seasons_tenant', columnNames: ['tenant_uuid', 'position'] },
          { name: 'idx_arena_seasons_clock', columnNames: ['status', 'starts_at', 'ends_at'] },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'arena_standings',
        columns: [{ ...text('season_uuid', '32'), isPrimary: true }, { ...text('profile_uuid', '32'), isPrimary: true }, { name: 'live', type: 'integer' }, { name: 'record', type: 'text' }],
        indices: [{ name: 'idx_arena_standings_live', columnNames: ['profile_uuid', 'live'] }],
      }),
    );
    await q.createTable(new Table({ name: 'arena_markets', columns: [{ ...text('market_uuid', '32'), isPrimary: true }, text('market_symbol', '40')] }));
  }
  async down(q: QueryRunner): Promise<void> {
    for (const t of ['arena_markets', 'arena_standings', 'arena_seasons']) await q.dropTable(t);
  }
}

/** The seasons' outbox (src/platform/outbox): each change of a season or of its standings, as its ArenaSeason, for Kafka. */
export class ArenaSeasonsOutbox1764000014700 implements MigrationInterface {
  name = 'ArenaSeasonsOutbox1764000014700';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_arena_seasons');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_arena_seasons');
  }
}

/**
 * What a published season row carries: its record and its standings' records (a JSON array's elements, joined; NULL
 * when it has none), in one statement the seed and the live changes share. string_agg: PostgreSQL, SQLite ≥ 3.44.
 */
const PUBLISHED_COLUMNS = "season_uuid, record, (SELECT string_agg(s.record, ',') FROM arena_standings s WHERE s.season_uuid = arena_seasons.season_uuid) AS standings";
interface PublishedSeasonRow {
  season_uuid: string;
  record: string;
  standings: string | null;
}

/** A season and its standings as its topic carries them: keyed by season_uuid, the tenant in the headers. */
const seasonChange = (row: PublishedSeasonRow) => {
  const season = JSON.parse(row.record) as SeasonRecord;
  const standings = JSON.parse(`[${row.standings ?? ''}]`) as StandingRecord[];
  return { key: season.season_uuid, value: publishedSeason(season, standings), headers: { tenant_uuid: season.tenant_uuid } };
};

export class ArenaSeasonsProjector implements Projector, PublishingProjector {
  readonly name = 'arena-seasons';
  readonly handles = [
    'ArenaSeasonCreated', 'ArenaSeasonScheduled', 'ArenaParticipantEnrolled', 'ArenaParticipantDisqualified', 'ArenaSeasonStarted', 'ArenaSeasonSettling', 'ArenaSeasonFinalized',
    'ArenaSeasonCancelled', 'MarketListed', 'TradeExecuted',
  ] as const;
  readonly outbox = new ProjectionOutbox('arena-seasons', 'outbox_arena_seasons', {
    title: 'Arena season with its leaderboard (value of platform.projections.arena-seasons)',
    key: "the value's season_uuid",
    description:
      'One arena season with its ranked leaderboard as GET /api/v1/admin/arena/seasons/{season_uuid} shows it (the data of its ArenaAdminResponse), published again whenever the season or ' +
      'any of its standings changes (every trade that counts for a participant), so the newest value is the current leaderboard; frozen once SETTLING.',
    component: 'ArenaSeason',
    omit: { 'leaderboard[].disqualification_reason': 'personal: the words the admin who disqualified the participant wrote (docs/privacy.md); sealed in the event log' },
    headers: { tenant_uuid: 'the tenant whose season it is' },
  });
  readonly published: PublishedTable<PublishedSeasonRow> = { table: 'arena_seasons', key: 'season_uuid', columns: PUBLISHED_COLUMNS, change: seasonChange };

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    if (event.type === 'MarketListed') {
      const d = (event as unknown as MarketListed).data;
      await q('INSERT INTO arena_markets (market_uuid, market_symbol) VALUES (?, ?) ON CONFLICT (market_uuid) DO NOTHING', [d.market_uuid, d.market_symbol]);
      return;
    }
    if (event.type === 'TradeExecuted') {
      for (const season_uuid of await this.trade(event.data as unknown as TradeExecutedData, tx)) await this.publish(tx, event, season_uuid);
      return;
    }
    const season_uuid = event.stream.slice('arena-season-'.length);
    if (await this.season(event, season_uuid, tx)) await this.publish(tx, event, season_uuid);
  }

  /** The season's record and standings into the outbox (Kafka on), as they are after the event. */
  private async publish(tx: EntityManager, event: RecordedEvent, season_uuid: string): Promise<void> {
    if (!this.outbox.enabled) return;
    const [row] = (await tx.query(portableSql(tx, `SELECT ${PUBLISHED_COLUMNS} FROM arena_seasons WHERE season_uuid = ?`), [season_uuid])) as PublishedSeasonRow[];
    if (row) await this.outbox.put(tx, { ...seasonChange(row), position: event.position, event_id: event.event_id });
  }

  /** A season event folded in; false: a replayed one, already in. */
  private async season(event: RecordedEvent, season_uuid: string, tx: EntityManager): Promise<boolean> {
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    const e = { type: event.type, data: event.data } as SeasonEvent;
    const before = await readRecord(tx, SEASONS, season_uuid);
    // A replayed event is already folded in: the version tells.
    if (before && BigInt(before.version) >= event.revision) return false;
    const moved = (status: SeasonStatus, extra: Partial<SeasonRecord> = {}) => patchRecord(tx, SEASONS, season_uuid, (r) => ({ status, version: r.version + 1, updated_at: event.occurred_at, ...extra }));
    const touched = () => patchRecord(tx, SEASONS, season_uuid, (r) => ({ version: r.version + 1, updated_at: event.occurred_at }));
    const position = event.position.toString().padStart(20, '0');
    switch (e.type) {
      case 'ArenaSeasonCreated':
        await insertRecord(tx, SEASONS, { ...e.data.season, status: 'DRAFT', version: 0, updated_at: e.data.season.created_at, started_position: null, settled_position: null }, { position });
        return true;
      case 'ArenaSeasonScheduled':
        await moved('SCHEDULED');
        return true;
      case 'ArenaParticipantEnrolled': {
        const live = before?.status === 'LIVE' ? 1 : 0;
        const standing: StandingRecord = { season_uuid, profile_uuid: e.data.profile_uuid, disqualified: false, disqualification_reason: null, realized_pnl: '0', trades: 0, markets: [], positions: {}, enrolled_at: e.data.at };
        await q('INSERT INTO arena_standings (season_uuid, profile_uuid, live, record) VALUES (?, ?, ?, ?) ON CONFLICT (season_uuid, profile_uuid) DO NOTHING', [season_uuid, e.data.profile_uuid, live, JSON.stringify(standing)]);
        await touched();
        return true;
      }
      case 'ArenaParticipantDisqualified': {
        const rows: Array<{ record: string }> = await q('SELECT record FROM arena_standings WHERE season_uuid = ? AND profile_uuid = ?', [season_uuid, e.data.profile_uuid]);
        if (rows.length) {
          const s = { ...(JSON.parse(rows[0].record) as StandingRecord), disqualified: true, disqualification_reason: e.data.reason };
          await q('UPDATE arena_standings SET live = 0, record = ? WHERE season_uuid = ? AND profile_uuid = ?', [JSON.stringify(s), season_uuid, e.data.profile_uuid]);
        }
        await touched();
        return true;
      }
      case 'ArenaSeasonStarted':
        await q('UPDATE arena_standings SET live = 1 WHERE season_uuid = ? AND record NOT LIKE ?', [season_uuid, '%"disqualified":true%']);
        await moved('LIVE', { started_position: event.position.toString() });
        return true;
      case 'ArenaSeasonSettling':
        // The window closes here: no later trade counts.
        await q('UPDATE arena_standings SET live = 0 WHERE season_uuid = ?', [season_uuid]);
        await moved('SETTLING', { settled_position: event.position.toString() });
        return true;
      case 'ArenaSeasonFinalized':
        await moved('FINAL');
        return true;
      case 'ArenaSeasonCancelled':
        await q('UPDATE arena_standings SET live = 0 WHERE season_uuid = ?', [season_uuid]);
        await moved('CANCELLED');
    }
    return true;
  }

  /** A trade counts for each of its two parties that is LIVE in a season trading that market: the seasons whose standings changed. */
  private async trade(d: TradeExecutedData, tx: EntityManager): Promise<Set<string>> {
    const changed = new Set<string>();
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    const sides = sidesOf(d);
    const live: Array<{ season_uuid: string; profile_uuid: string; record: string }> = await q('SELECT season_uuid, profile_uuid, record FROM arena_standings WHERE live = 1 AND profile_uuid IN (?, ?)', [
      d.taker_profile_uuid, d.maker_profile_uuid,
    ]);
    if (live.length === 0) return changed;
    const [market] = (await q('SELECT market_symbol FROM arena_markets WHERE market_uuid = ?', [d.market_uuid])) as Array<{ market_symbol: string }>;
    const symbol = market?.market_symbol ?? d.market_uuid;
    for (const row of live) {
      const season = await readRecord(tx, SEASONS, row.season_uuid);
      if (!season || (season.markets.length > 0 && !season.markets.includes(symbol))) continue;
      let s = JSON.parse(row.record) as StandingRecord;
      // A self-trade (both sides the same participant) counts each side.
      for (const [profile, side] of sides) if (profile === row.profile_uuid) s = withFill(s, symbol, side, d.price, d.size);
      await q('UPDATE arena_standings SET record = ? WHERE season_uuid = ? AND profile_uuid = ?', [JSON.stringify(s), row.season_uuid, row.profile_uuid]);
      changed.add(row.season_uuid);
    }
    return changed;
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['arena_seasons', 'arena_standings', 'arena_markets']) await tx.query(`DELETE FROM ${t}`);
  }
}

export const arenaSeasonsReadModel: ReadModelDefinition = {
  name: 'arena-seasons',
  entities: [],
  migrations: [ArenaSeasons1764000012000, ArenaSeasonsOutbox1764000014700],
  projector: ArenaSeasonsProjector,
};
