import { afterAll, describe, expect, it } from 'vitest';
import { disposeDialects } from '../../src/dialects/index.js';
import { provision, TARGETS, targetReachable, type EngineTarget } from '../engine/support/targets.js';
import { captureLogs, runBatch } from './harness.js';

captureLogs();
afterAll(() => disposeDialects());

/** A migration's upgrade SQL and how the hook is expected to read the schema after it. */
type Case = [sql: string, introspection: 'full' | 'partial' | 'none'];

/**
 * Every recognised form, quoted and qualified names, and forms that must fall back to a full
 * read, for each dialect. The schema before the first migration is read in full; the first
 * migration itself is read like any other.
 */
const CASES: Record<string, Case[]> = {
  postgresql: [
    [`CREATE TYPE mood AS ENUM ('calm', 'busy');\nCREATE TABLE users (id serial PRIMARY KEY, email varchar(255) NOT NULL, m mood DEFAULT 'calm');`, 'partial'],
    [`CREATE TABLE "Posts" (id int PRIMARY KEY, user_id int REFERENCES users (id) ON DELETE CASCADE, title text);\nCREATE INDEX posts_title ON "Posts" (title);`, 'partial'],
    [`ALTER TABLE users ADD COLUMN name text;\nALTER TABLE "Posts" ADD CONSTRAINT ck_title CHECK (length(title) > 0);`, 'partial'],
    [`CREATE UNIQUE INDEX IF NOT EXISTS users_email ON ONLY users (lower(email));\nCOMMENT ON TABLE users IS 'people';\nCOMMENT ON COLUMN "Posts".title IS 'headline';`, 'partial'],
    [`INSERT INTO users (email) VALUES ('a@example.com');\nUPDATE users SET name = upper(email) WHERE id > 0;\nWITH x AS (SELECT count(*) AS n FROM users) SELECT n FROM x;`, 'none'],
    [`ALTER TYPE mood ADD VALUE 'tired';`, 'partial'],
    [`CREATE SCHEMA app;\nCREATE TABLE app.items (id int PRIMARY KEY);`, 'full'],
    [`CREATE TABLE app.tags (id int PRIMARY KEY, item_id int REFERENCES app.items (id));\nALTER TABLE app.items ADD COLUMN label text;\nCREATE INDEX ON app.items (label);`, 'partial'],
    [`DROP INDEX posts_title;\nDROP INDEX CONCURRENTLY IF EXISTS app.items_label_idx;`, 'partial'],
    [`CREATE TABLE parent (id int PRIMARY KEY, note text);\nCREATE TABLE child (extra int) INHERITS (parent);`, 'full'],
    // The child inherits the new column: the parent's children are read with it.
    [`ALTER TABLE parent ADD COLUMN added int NOT NULL DEFAULT 0;`, 'partial'],
    [`DO $$ BEGIN EXECUTE 'CREATE TABLE made_by_do (id int)'; END $$;`, 'full'],
    [`ALTER TABLE users RENAME COLUMN name TO full_name;`, 'full'],
    [`DROP TABLE IF EXISTS "Posts", app.tags;`, 'partial'],
    [`CREATE TABLE public.qualified_default (id int PRIMARY KEY);\nCREATE TYPE unused AS ENUM ('x');`, 'partial'],
    [`DROP TYPE unused;\nDROP TABLE qualified_default;`, 'partial'],
    [`SELECT pg_sleep(0);`, 'full'],
    [`SELECT * INTO users_copy FROM users;`, 'full'],
    [
      `CREATE FUNCTION make_side_table() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN CREATE TABLE IF NOT EXISTS made_by_trigger (id int); RETURN NEW; END $$;\n` +
        `CREATE TRIGGER users_ins AFTER INSERT ON users FOR EACH ROW EXECUTE FUNCTION make_side_table();`,
      'full',
    ],
    // With a trigger in the database, a data statement may run DDL (this one does).
    [`INSERT INTO users (email) VALUES ('b@example.com');`, 'full'],
    [`ALTER TABLE users DROP COLUMN m;\nALTER TABLE app.items ALTER COLUMN label SET NOT NULL;`, 'partial'],
  ],
  mysql: [
    [`CREATE TABLE users (id int PRIMARY KEY AUTO_INCREMENT, email varchar(255) NOT NULL, status enum('a', 'b') DEFAULT 'a');`, 'partial'],
    [
      `CREATE TABLE posts (id int PRIMARY KEY, user_id int, title text, CONSTRAINT fk_posts_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE);\nCREATE INDEX posts_title ON posts (title(20));`,
      'partial',
    ],
    [`ALTER TABLE users ADD COLUMN name varchar(50) COMMENT 'shown', ADD INDEX users_name (name);`, 'partial'],
    [`ALTER TABLE posts ADD CONSTRAINT ck_title CHECK (char_length(title) > 0);`, 'partial'],
    [`DROP INDEX posts_title ON posts;`, 'partial'],
    [`INSERT INTO users (email) VALUES ('a@example.com');\nUPDATE users SET name = 'x' WHERE id > 0;\nDELETE FROM posts WHERE id < 0;`, 'none'],
    [`ALTER TABLE users CHANGE name nick varchar(50);`, 'full'],
    [`CREATE TABLE \`Mixed\` (id int PRIMARY KEY, doc json);`, 'partial'],
    [`ALTER TABLE \`Mixed\` ADD COLUMN b int NOT NULL DEFAULT 3;\nCREATE UNIQUE INDEX mixed_b ON \`Mixed\` (b);`, 'partial'],
    [`DROP TABLE IF EXISTS \`Mixed\`, nothing_here;`, 'partial'],
    [`CREATE VIEW v AS SELECT 1 AS one;`, 'full'],
    [`RENAME TABLE posts TO articles;`, 'full'],
    [`ALTER TABLE articles DROP FOREIGN KEY fk_posts_user;`, 'partial'],
  ],
  sqlite: [
    [`CREATE TABLE users (id integer PRIMARY KEY, email text NOT NULL UNIQUE);`, 'partial'],
    // A foreign key without columns refers to the users primary key.
    [`CREATE TABLE posts (id integer PRIMARY KEY, user_id integer REFERENCES users, title text CHECK (length(title) > 0));`, 'partial'],
    [`CREATE INDEX posts_title ON posts (title);\nCREATE UNIQUE INDEX IF NOT EXISTS users_email_lower ON users (lower(email));`, 'partial'],
    [`ALTER TABLE users ADD COLUMN name text DEFAULT 'x';`, 'partial'],
    [`DROP INDEX posts_title;`, 'partial'],
    [
      `CREATE TABLE users_new (id integer PRIMARY KEY, email text NOT NULL UNIQUE, name text);\nINSERT INTO users_new SELECT id, email, name FROM users;\nDROP TABLE users;\nALTER TABLE users_new RENAME TO users;`,
      'full',
    ],
    // posts' foreign key names users without columns: its referenced columns follow users' new key.
    [`DROP TABLE users;\nCREATE TABLE users (uid integer PRIMARY KEY, email text);`, 'partial'],
    [`CREATE TABLE "Mixed" (id integer PRIMARY KEY);`, 'partial'],
    [`ALTER TABLE mixed ADD COLUMN b text;`, 'partial'],
    [`INSERT INTO users (email) VALUES ('a@example.com');\nSELECT count(*) FROM users;`, 'none'],
    [`CREATE VIEW v AS SELECT 1 AS one;\nCREATE TRIGGER users_t AFTER INSERT ON users BEGIN SELECT 1; END;`, 'full'],
    [`DROP TABLE IF EXISTS "Mixed";\nCREATE TABLE [bracketed] (id integer);`, 'partial'],
    [`PRAGMA user_version = 3;`, 'full'],
  ],
  'clickhouse-18.16': [
    [`CREATE TABLE events (d Date, id UInt64, name String) ENGINE = MergeTree() PARTITION BY toYYYYMM(d) ORDER BY id`, 'partial'],
    [`CREATE TABLE users (id UInt64, email String) ENGINE = MergeTree() ORDER BY id`, 'partial'],
    [`ALTER TABLE events ADD COLUMN extra Nullable(String)`, 'partial'],
    [`ALTER TABLE users ADD COLUMN age UInt8 DEFAULT 0`, 'partial'],
    [`INSERT INTO users (id, email) VALUES (1, 'a@example.com')`, 'none'],
    [`CREATE MATERIALIZED VIEW mv ENGINE = MergeTree() ORDER BY id AS SELECT id FROM users`, 'full'],
    [`ALTER TABLE users DROP COLUMN age`, 'partial'],
    [`DROP TABLE mv`, 'full'],
    [`CREATE TABLE IF NOT EXISTS \`Quoted\` (id UInt64) ENGINE = Log`, 'partial'],
    [`DROP TABLE IF EXISTS users`, 'partial'],
    [`RENAME TABLE events TO events2`, 'full'],
  ],
};

const targets: [EngineTarget, Case[]][] = Object.entries(CASES).map(([id, cases]) => [TARGETS.find((t) => t.id === id)!, cases]);

for (const [target, cases] of targets) {
  describe.skipIf(!(await targetReachable(target)))(`incremental snapshots (${target.id})`, () => {
    it('after each migration the snapshot equals a full introspection, and recognised migrations re-read only what they touch', async () => {
      const db = await provision(target);
      try {
        const { steps, warnings } = await runBatch(target.type, db.url, cases.map((c) => c[0]));
        expect(warnings).toEqual([]);
        expect(steps).toHaveLength(cases.length);
        steps.forEach((step, i) => {
          // Compared one by one so a failure names the migration.
          expect(step.snapshot, `${step.filename}: ${cases[i]![0]}`).toBe(step.live);
        });
        expect(steps.map((s) => `${s.filename}: ${s.introspection}`)).toEqual(cases.map((c, i) => `app__${String(i + 1).padStart(4, '0')}_m${i + 1}.sql: ${c[1]}`));
      } finally {
        await disposeDialects();
        await db.drop();
      }
    }, 60_000);
  });
}
