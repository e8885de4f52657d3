import { afterAll, beforeAll, describe, it } from 'vitest';
import { createTestDatabase, serverStatus, type TestDatabase } from '../support/databases.js';
import { roundTrip } from './round-trip.js';

const mysql = await serverStatus('mysql');

const SCHEMA = `
CREATE TABLE users (
  id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY,
  email varchar(255) NOT NULL COMMENT 'login name',
  name text,
  active tinyint(1) NOT NULL DEFAULT 1,
  score decimal(10,2) DEFAULT 1.5,
  ratio float,
  precise double DEFAULT -2.25,
  small smallint DEFAULT -1,
  born datetime,
  seen timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  avatar blob,
  status enum('active','banned') NOT NULL DEFAULT 'active',
  tiny tinyint unsigned,
  nick varchar(20) DEFAULT 'it''s',
  UNIQUE KEY uq_users_email (email),
  KEY idx_users_born_status (born, status)
) COMMENT='people who log in';
CREATE TABLE orgs (
  id int NOT NULL AUTO_INCREMENT PRIMARY KEY,
  slug varchar(64) NOT NULL,
  parent int,
  CONSTRAINT fk_orgs_parent FOREIGN KEY (parent) REFERENCES orgs (id) ON DELETE SET NULL
);
CREATE TABLE members (
  org_id int NOT NULL,
  user_id bigint NOT NULL,
  role varchar(20) NOT NULL DEFAULT 'member',
  PRIMARY KEY (org_id, user_id),
  CONSTRAINT fk_members_org FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE ON UPDATE RESTRICT,
  CONSTRAINT fk_members_user FOREIGN KEY (user_id) REFERENCES users (id)
);
`;

for (const type of ['mysql', 'mariadb'] as const) {
  describe.skipIf(!mysql.reachable)(`${type} (MariaDB server): migrate, generate-models, tsc, export-models, check-db --out sql, recover-model-state`, () => {
    const dbs: TestDatabase[] = [];
    beforeAll(async () => {
      for (let i = 0; i < 2; i++) dbs.push(await createTestDatabase('mysql'));
    });
    afterAll(async () => {
      for (const db of dbs) await db.drop();
    });

    it('round-trips a varied schema (auto increment, enum, unsigned, comments, composite keys, foreign key actions)', async () => {
      await roundTrip({ type, url: dbs[0]!.url, emptyUrl: dbs[1]!.url, schema: SCHEMA, objects: ['members', 'orgs', 'users'], flags: ['--relationships'] });
    }, 180_000);
  });
}
