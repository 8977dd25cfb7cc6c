import type { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toDatabase } from '../../src/stores/postgres/database'
import type { Database } from '../../src/stores/postgres/database-interface'
import { applyMigrations } from '../../src/stores/postgres/migrate'
import { MIGRATIONS, type Migration } from '../../src/stores/postgres/migrations'
import { freshPglite } from '../helpers/pglite'
import { contractions, readSchemaCatalog } from '../helpers/schema-catalog'
import { uniqueSchema } from './sql-fixture'

/**
 * SPEC §5.54: between adjacent minor versions migrations only expand, so that a fleet
 * running both on the migrated schema keeps working (docs/upgrading.md). Each migration
 * is applied on its own to the schema the ones before it left, and the catalog before
 * and after are compared: a table, column, index, constraint, function or type that is
 * gone (dropped or renamed), a column type narrowed, a column made NOT NULL, a default
 * removed, a definition changed, or a new rule over existing columns, fails the test
 * unless the migration declares it as a planned contract step (`contract.changes`,
 * word for word; a listed change the migration does not make fails too).
 */

let db: PGlite
let database: Database

beforeAll(async () => {
  db = await freshPglite()
  database = toDatabase(db)
})

afterAll(async () => {
  await db.close()
})

interface StepReport {
  readonly version: number
  readonly found: readonly string[]
  readonly declared: readonly string[]
}

/** Applies `migrations` one at a time to a new schema and reports what each removed or narrowed. */
async function checkEach(migrations: readonly Migration[]): Promise<{ schema: string; steps: StepReport[] }> {
  const schema = uniqueSchema()
  let before = await readSchemaCatalog(database, schema)
  const steps: StepReport[] = []
  for (let index = 0; index < migrations.length; index++) {
    await applyMigrations(database, schema, migrations.slice(0, index + 1))
    const after = await readSchemaCatalog(database, schema)
    const migration = migrations[index]!
    steps.push({ version: migration.version, found: contractions(before, after), declared: [...(migration.contract?.changes ?? [])].sort() })
    before = after
  }
  return { schema, steps }
}

/** The steps whose found changes differ from what they declare. */
const undeclared = (steps: readonly StepReport[]) => steps.filter((step) => step.found.join('\n') !== step.declared.join('\n'))

describe('SPEC 5.54 migrations only expand unless declared as a contract step', () => {
  it('holds for every migration of the package, each applied on the schema the ones before it left', async () => {
    const { schema, steps } = await checkEach(MIGRATIONS)
    expect(undeclared(steps)).toEqual([])
    // It read the real schema: the tables, columns and the function a verification needs.
    const catalog = await readSchemaCatalog(database, schema)
    expect(catalog.relations.has('table account_passcodes')).toBe(true)
    expect(catalog.columns.get('column account_passcodes.hash')).toEqual({ type: 'text', notNull: true, default: null })
    expect(catalog.functions.get('function find_credential_by_hash(text)')).toBe('text')
    expect(catalog.indexes.has('index account_passcodes_hash_key')).toBe(true)
    expect(catalog.constraints.has('constraint account_passcodes.account_passcodes_previous_hash_check')).toBe(true)
    // Every contract step declared in the list is one the check saw.
    expect(steps.filter((step) => step.declared.length > 0).map((step) => step.version)).toEqual(
      MIGRATIONS.filter((migration) => migration.contract !== undefined).map((migration) => migration.version),
    )
  })

  /** One schema at the package's version, shared by the synthetic cases: each runs in a transaction rolled back. */
  let full: Promise<string> | undefined
  const fullSchema = () =>
    (full ??= (async () => {
      const schema = uniqueSchema()
      await applyMigrations(database, schema, MIGRATIONS)
      return schema
    })())

  class RolledBack extends Error {
    constructor(readonly steps: StepReport[]) {
      super('rolled back')
    }
  }

  /** `extra` (versions from 1001) after the package's migrations, each checked on its own, then rolled back. */
  const withExtra = async (...extra: (Pick<Migration, 'statements'> & Partial<Pick<Migration, 'contract'>>)[]) => {
    const schema = await fullSchema()
    try {
      await database.transaction(async (tx) => {
        const steps: StepReport[] = []
        let before = await readSchemaCatalog(tx, schema)
        for (const [index, migration] of extra.entries()) {
          for (const statement of migration.statements(schema)) await tx.query(statement)
          const after = await readSchemaCatalog(tx, schema)
          steps.push({ version: 1001 + index, found: contractions(before, after), declared: [...(migration.contract?.changes ?? [])].sort() })
          before = after
        }
        throw new RolledBack(steps)
      })
    } catch (error) {
      if (error instanceof RolledBack) return { added: error.steps }
      throw error
    }
    throw new Error('not rolled back')
  }

  const cases: { title: string; statements: (s: string) => string[]; found: string[]; setup?: (s: string) => string[] }[] = [
    {
      title: 'a dropped column (and its check)',
      statements: (s) => [`ALTER TABLE ${s}.account_passcodes DROP COLUMN description`],
      found: ['column account_passcodes.description', 'constraint account_passcodes.account_passcodes_description_check'],
    },
    {
      title: 'a renamed column',
      statements: (s) => [`ALTER TABLE ${s}.user_passcodes RENAME COLUMN hint TO value_hint`],
      // The new name is a NOT NULL column the version before does not write.
      found: ['column user_passcodes.hint', 'not null user_passcodes.value_hint'],
    },
    {
      title: 'a renamed table',
      statements: (s) => [`ALTER TABLE ${s}.partners RENAME TO connect_partners`],
      // The primary key keeps its name, on another table.
      found: [
        'changed index partners_pkey',
        'column partners.added_at',
        'column partners.name',
        'constraint partners.partners_pkey',
        'table partners',
      ],
    },
    { title: 'a dropped index', statements: (s) => [`DROP INDEX ${s}.usage_days_day`], found: ['index usage_days_day'] },
    {
      title: 'a renamed index',
      statements: (s) => [`ALTER INDEX ${s}.leak_marks_unsent RENAME TO leak_marks_due`],
      found: ['index leak_marks_unsent'],
    },
    {
      title: 'a dropped constraint',
      statements: (s) => [`ALTER TABLE ${s}.account_passcodes DROP CONSTRAINT account_passcodes_previous_hash_check`],
      found: ['constraint account_passcodes.account_passcodes_previous_hash_check'],
    },
    {
      title: 'a dropped function',
      statements: (s) => [`DROP FUNCTION ${s}.find_credential_by_hash(text)`],
      found: ['function find_credential_by_hash(text)'],
    },
    {
      title: 'a dropped type',
      setup: (s) => [`CREATE TYPE ${s}.outcome AS ENUM ('succeeded', 'refused')`],
      statements: (s) => [`DROP TYPE ${s}.outcome`],
      found: ['type outcome'],
    },
    {
      title: 'a renamed type',
      setup: (s) => [`CREATE DOMAIN ${s}.epoch_ms AS bigint CHECK (VALUE >= 0)`],
      statements: (s) => [`ALTER DOMAIN ${s}.epoch_ms RENAME TO instant`],
      found: ['type epoch_ms'],
    },
    {
      title: 'a column type narrowed',
      statements: (s) => [`ALTER TABLE ${s}.account_passcodes ALTER COLUMN last_used_at TYPE integer`],
      found: ['column type account_passcodes.last_used_at'],
    },
    {
      title: 'a varchar shortened',
      setup: (s) => [`ALTER TABLE ${s}.partners ADD COLUMN label varchar(64)`],
      statements: (s) => [`ALTER TABLE ${s}.partners ALTER COLUMN label TYPE varchar(32)`],
      found: ['column type partners.label'],
    },
    {
      title: 'a column made NOT NULL',
      statements: (s) => [`ALTER TABLE ${s}.leak_marks ALTER COLUMN url SET NOT NULL`],
      found: ['not null leak_marks.url'],
    },
    {
      title: 'a NOT NULL column without a default added to a table',
      statements: (s) => [`ALTER TABLE ${s}.partners ADD COLUMN owner text NOT NULL`],
      found: ['not null partners.owner'],
    },
    {
      title: 'a default removed',
      statements: (s) => [`ALTER TABLE ${s}.account_passcodes ALTER COLUMN description DROP DEFAULT`],
      found: ['default account_passcodes.description'],
    },
    {
      title: 'a new check on an existing column',
      statements: (s) => [`ALTER TABLE ${s}.account_passcodes ADD CONSTRAINT hint_short CHECK (char_length(hint) < 20)`],
      found: ['new constraint account_passcodes.hint_short'],
    },
    {
      title: 'a list of allowed values shortened',
      statements: (s) => [
        `ALTER TABLE ${s}.leak_marks DROP CONSTRAINT leak_marks_action_check`,
        `ALTER TABLE ${s}.leak_marks ADD CONSTRAINT leak_marks_action_check CHECK (action IN ('disabled', 'deleted')) NOT VALID`,
      ],
      found: ['changed constraint leak_marks.leak_marks_action_check'],
    },
    {
      title: 'a new unique index on an existing column',
      statements: (s) => [`CREATE UNIQUE INDEX leak_marks_one_per_key ON ${s}.leak_marks (account_id, key)`],
      found: ['new unique index leak_marks_one_per_key'],
    },
    {
      title: 'an enum value renamed',
      setup: (s) => [`CREATE TYPE ${s}.channel AS ENUM ('email', 'webhook')`],
      statements: (s) => [`ALTER TYPE ${s}.channel RENAME VALUE 'webhook' TO 'hook'`],
      found: ['enum value channel.webhook'],
    },
  ]

  for (const { title, setup, statements, found } of cases) {
    it(`fails on ${title}`, async () => {
      const { added } = await withExtra(...(setup === undefined ? [] : [{ statements: setup }]), { statements })
      const step = added.at(-1)!
      expect(step.found).toEqual(found)
      expect(undeclared(added)).toEqual([step])
    })
  }

  it('passes an expand: a new table, a nullable column, a column with a default, an index, a widened type, a longer list of allowed values', async () => {
    const { added } = await withExtra({
      statements: (s) => [
        `CREATE TABLE ${s}.partner_notes (id text PRIMARY KEY, url text NOT NULL, CHECK (char_length(url) < 2048))`,
        `ALTER TABLE ${s}.partners ADD COLUMN note text`,
        `ALTER TABLE ${s}.partners ADD COLUMN enabled boolean NOT NULL DEFAULT true`,
        `ALTER TABLE ${s}.partners ADD CONSTRAINT partners_note_check CHECK (char_length(note) <= 500)`,
        `CREATE INDEX partners_added_at ON ${s}.partners (added_at)`,
        `ALTER TABLE ${s}.user_passcodes ALTER COLUMN validity_days TYPE bigint`,
        `CREATE OR REPLACE FUNCTION ${s}.find_credential_by_hash(text) RETURNS text LANGUAGE sql STABLE AS $$ SELECT NULL::text $$`,
        // A list of allowed values that only grows (as usage_days' outcomes do in versions 14 and 15).
        `ALTER TABLE ${s}.leak_marks DROP CONSTRAINT leak_marks_action_check`,
        `ALTER TABLE ${s}.leak_marks ADD CONSTRAINT leak_marks_action_check CHECK (action IN ('disabled', 'deleted', 'revoked', 'quarantined')) NOT VALID`,
      ],
    })
    expect(added).toEqual([{ version: 1001, found: [], declared: [] }])
  })

  it('passes a drop declared as a contract step, and fails a declaration the migration does not carry out', async () => {
    const contract = { changes: ['column account_passcodes.last_used_partner'], reason: 'no version of the fleet reads it' }
    const declared = await withExtra({ statements: (s) => [`ALTER TABLE ${s}.account_passcodes DROP COLUMN last_used_partner`], contract })
    expect(undeclared(declared.added)).toEqual([])
    expect(declared.added[0]!.found).toEqual(['column account_passcodes.last_used_partner'])

    const untrue = await withExtra({ statements: (s) => [`ALTER TABLE ${s}.account_passcodes ADD COLUMN owner text`], contract })
    expect(undeclared(untrue.added)).toEqual([{ version: 1001, found: [], declared: ['column account_passcodes.last_used_partner'] }])
  })
})
