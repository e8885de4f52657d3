import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { roundTrip } from './round-trip.js';

const dir = await mkdtemp(join(tmpdir(), 'mtool-sqlite-rt-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const SCHEMA = `
CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  email VARCHAR(255) NOT NULL,
  name TEXT,
  active BOOLEAN NOT NULL DEFAULT 1,
  score NUMERIC(10,2) DEFAULT 1.5,
  ratio REAL,
  born TIMESTAMP,
  created TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  avatar BLOB,
  token UUID,
  status VARCHAR(6) NOT NULL DEFAULT 'active',
  nick VARCHAR(20) DEFAULT 'it''s',
  CONSTRAINT ck_users_score CHECK (score >= 0),
  CONSTRAINT ck_users_status CHECK (status IN ('active', 'banned'))
);
CREATE UNIQUE INDEX uq_users_email ON users (email);
CREATE INDEX idx_users_name_desc ON users (name DESC, email);
CREATE INDEX idx_users_born ON users (born) WHERE born IS NOT NULL;
CREATE INDEX idx_users_lower ON users (lower(email));
CREATE TABLE orgs (id INTEGER NOT NULL PRIMARY KEY, slug TEXT NOT NULL, parent INTEGER REFERENCES orgs (id) ON DELETE SET NULL);
CREATE TABLE members (
  org_id INTEGER NOT NULL REFERENCES orgs (id) ON DELETE CASCADE ON UPDATE RESTRICT,
  user_id BIGINT NOT NULL,
  role TEXT NOT NULL DEFAULT 'member',
  weight DOUBLE DEFAULT 0.5,
  PRIMARY KEY (user_id, org_id),
  CONSTRAINT fk_members_user FOREIGN KEY (user_id) REFERENCES users (id) DEFERRABLE INITIALLY DEFERRED
);
`;

describe('sqlite: migrate, generate-models, tsc, export-models, check-db --out sql, recover-model-state', () => {
  it('round-trips a varied schema', async () => {
    await roundTrip({ type: 'sqlite', url: `sqlite:///${join(dir, 'a.db')}`, emptyUrl: `sqlite:///${join(dir, 'b.db')}`, schema: SCHEMA, objects: ['members', 'orgs', 'users'] });
  }, 120_000);

  it('round-trips with --single-file and --relationships', async () => {
    await roundTrip({ type: 'sqlite', url: `sqlite:///${join(dir, 'c.db')}`, emptyUrl: `sqlite:///${join(dir, 'd.db')}`, schema: SCHEMA, objects: ['members', 'orgs', 'users'], flags: ['--single-file', '--relationships'] });
  }, 120_000);
});
