import { describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import { executed } from '../../src/dialects/mysql/executable-comment.js';
import { assignedVariables, mysqlSessionGuard } from '../../src/dialects/mysql/session-guard.js';
import { postgresSessionGuard } from '../../src/dialects/postgresql/session-guard.js';
import { sqliteSessionGuard } from '../../src/dialects/sqlite/session-guard.js';

const statements = (...texts: string[]) => texts.map((text) => ({ text }));

describe('MySQL and MariaDB: the session variables a SET statement assigns', () => {
  it('reads plain, scoped, @@ and several assignments, skipping user variables, global ones and quoted commas', () => {
    expect(assignedVariables("SET sql_mode = 'A,B', SESSION time_zone = '+00:00', @x = 1, @@session.wait_timeout = 10, @@LOCAL.net_read_timeout := (1 + 2)")).toEqual([
      'sql_mode',
      'time_zone',
      'wait_timeout',
      'net_read_timeout',
    ]);
    expect(assignedVariables('SET GLOBAL max_connections = 10, wait_timeout = 5, SESSION lock_wait_timeout = 3')).toEqual(['lock_wait_timeout']);
    expect(assignedVariables("SET @@global.sql_mode = '', @a = CONCAT('x,', 'y=1'), innodb_lock_wait_timeout = 5")).toEqual([]);
  });

  it('reads SET NAMES and SET CHARACTER SET as the four character set variables', () => {
    expect(assignedVariables('SET NAMES latin1 COLLATE latin1_bin')).toEqual(['character_set_client', 'character_set_results', 'character_set_connection', 'collation_connection']);
    expect(assignedVariables('SET CHARACTER SET utf8mb4')).toHaveLength(4);
  });

  it('saves before the file and sets back after it, the clock to DEFAULT, the collation after its character set', () => {
    expect(mysqlSessionGuard(statements('CREATE TABLE t (id int)', "INSERT INTO t VALUES (1)"))).toBeUndefined();
    expect(mysqlSessionGuard(statements('SET @counter = 1', 'SET GLOBAL wait_timeout = 10', 'SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE', 'SET autocommit = 0'))).toBeUndefined();
    // Transaction characteristics: read just before the file (their variables' names differ by version).
    expect(mysqlSessionGuard(statements('SET TRANSACTION ISOLATION LEVEL SERIALIZABLE'))).toHaveProperty('capture');
    expect(mysqlSessionGuard(statements('SET NAMES latin1', "SET sql_mode = ''", 'SET timestamp = 1700000000'))).toEqual({
      save: [
        'SET @mtool_saved_sql_mode = @@SESSION.sql_mode, @mtool_saved_character_set_client = @@SESSION.character_set_client, @mtool_saved_character_set_results = @@SESSION.character_set_results, @mtool_saved_character_set_connection = @@SESSION.character_set_connection, @mtool_saved_collation_connection = @@SESSION.collation_connection',
      ],
      restore: [
        'SET SESSION sql_mode = @mtool_saved_sql_mode, SESSION timestamp = DEFAULT, SESSION character_set_client = @mtool_saved_character_set_client, SESSION character_set_results = @mtool_saved_character_set_results, SESSION character_set_connection = @mtool_saved_character_set_connection, SESSION collation_connection = @mtool_saved_collation_connection',
      ],
    });
  });
});

describe('PostgreSQL: files that change session settings', () => {
  it('guards SET, RESET, DISCARD ALL and set_config, not SET LOCAL, SET TRANSACTION, SET CONSTRAINTS or a session switch', () => {
    for (const text of ["SET statement_timeout = '5s'", 'SET SESSION work_mem TO 1024', 'RESET lock_timeout', 'DISCARD ALL', "SELECT set_config('work_mem', '1MB', false)"]) {
      expect(postgresSessionGuard(statements(text)), text).toBeDefined();
    }
    for (const text of [
      "SET LOCAL statement_timeout = '5s'",
      'SET TRANSACTION ISOLATION LEVEL SERIALIZABLE',
      'SET CONSTRAINTS ALL DEFERRED',
      'CREATE TABLE settings (id int)',
      // Session switches, put back on their own (dialect.ts).
      'SET search_path TO app',
      'SET SESSION ROLE owner',
      "SELECT set_config('search_path', 'app', false)",
    ]) {
      expect(postgresSessionGuard(statements(text)), text).toBeUndefined();
    }
  });
});

describe('SQLite: files that set connection PRAGMAs', () => {
  it('guards settings set with = or (), qualified or not; not foreign_keys, what the file stores, reads or commands', () => {
    for (const text of ['PRAGMA legacy_alter_table = ON', 'PRAGMA recursive_triggers(1)', 'PRAGMA main.synchronous = OFF', 'pragma query_only=1']) {
      expect(sqliteSessionGuard(statements(text)), text).toBeDefined();
    }
    for (const text of ['PRAGMA foreign_keys = OFF', 'PRAGMA journal_mode = WAL', 'PRAGMA user_version = 3', 'PRAGMA legacy_alter_table', 'PRAGMA table_info(t)', 'PRAGMA optimize']) {
      expect(sqliteSessionGuard(statements(text)), text).toBeUndefined();
    }
  });
});

describe('temporary tables a file makes are dropped after it', () => {
  it('PostgreSQL: DISCARD TEMP after a file that makes any, after setting back its settings', () => {
    expect(postgresSessionGuard(statements('CREATE TEMP TABLE t AS SELECT 1'))).toEqual({ save: [], restore: ['DISCARD TEMP'] });
    expect(postgresSessionGuard(statements('CREATE GLOBAL TEMPORARY TABLE t (id int)'))).toEqual({ save: [], restore: ['DISCARD TEMP'] });
    expect(postgresSessionGuard(statements('SELECT * INTO TEMP t FROM x'))).toEqual({ save: [], restore: ['DISCARD TEMP'] });
    // With settings to set back, read before the file (a DISCARD ALL in it would forget values kept in the session).
    expect(postgresSessionGuard(statements("SET work_mem = '1GB'", 'CREATE TEMPORARY VIEW v AS SELECT 1'))).toHaveProperty('capture');
    expect(postgresSessionGuard(statements('CREATE TABLE temp (id int)', 'SELECT * INTO backup FROM t'))).toBeUndefined();
  });

  it('MySQL and MariaDB: each temporary table by its name, as written', () => {
    expect(mysqlSessionGuard(statements('CREATE TEMPORARY TABLE IF NOT EXISTS `tmp ids` AS SELECT 1', 'CREATE TEMPORARY TABLE shop.t2 (id int)'))).toEqual({
      save: [],
      restore: ['DROP TEMPORARY TABLE IF EXISTS `tmp ids`, shop.t2'],
    });
    expect(mysqlSessionGuard(statements('CREATE TABLE temporary_things (id int)'))).toBeUndefined();
  });

  it('SQLite: temporary tables, views and triggers in the temp schema, the last made first', () => {
    expect(sqliteSessionGuard(statements('CREATE TEMP TABLE t (id int)', 'CREATE TEMPORARY VIEW IF NOT EXISTS temp."v 1" AS SELECT 1'))).toEqual({
      save: [],
      restore: ['DROP VIEW IF EXISTS temp."v 1"', 'DROP TABLE IF EXISTS temp.t'],
    });
  });
});

describe('MySQL and MariaDB: executable comments, locked tables, implicit commits', () => {
  it('reads the statement an executable comment holds, as the server runs it', () => {
    expect(executed('/*!40101 SET NAMES utf8mb4 */')).toBe('SET NAMES utf8mb4');
    expect(executed('/*M!100100 SET sql_mode = 1 */')).toBe('SET sql_mode = 1');
    expect(executed('/* a comment */ SELECT 1')).toBe('/* a comment */ SELECT 1');
    expect(mysqlSessionGuard(statements("/*!40101 SET SQL_MODE='' */"))).toBeDefined();
  });

  it('unlocks tables a file locked, before anything else after it', () => {
    expect(mysqlSessionGuard(statements('LOCK TABLES t WRITE', 'SET sql_mode = 1'))).toMatchObject({ restore: ['UNLOCK TABLES', 'SET SESSION sql_mode = @mtool_saved_sql_mode'] });
  });

  it('knows which statements commit the open transaction before they run', () => {
    const commits = getDialect('mariadb').commitsImplicitly!;
    for (const text of ['CREATE TABLE t (id int)', 'ALTER TABLE t ADD c int', 'DROP INDEX i ON t', 'TRUNCATE t', 'LOCK TABLES t WRITE', 'GRANT SELECT ON t TO u', 'SET autocommit = 1', '/*!40000 ALTER TABLE `t` DISABLE KEYS */']) {
      expect(commits(text), text).toBe(true);
    }
    for (const text of ['INSERT INTO t VALUES (1)', 'UPDATE t SET a = 1', 'CREATE TEMPORARY TABLE x (id int)', "SET sql_mode = ''", 'SELECT 1']) {
      expect(commits(text), text).toBe(false);
    }
    // What a procedure or a prepared statement runs is out of sight: it may be DDL.
    for (const text of ['CALL make_tables()', 'call p', 'EXECUTE stmt', 'EXECUTE stmt USING @a']) {
      expect(commits(text), text).toBe('maybe');
    }
  });
});

describe('locks a file takes for the session are released after it', () => {
  it('PostgreSQL: session advisory locks, not the transaction ones', () => {
    expect(postgresSessionGuard(statements('SELECT pg_advisory_lock(42)'))).toEqual({ save: [], restore: ['SELECT pg_advisory_unlock_all()'] });
    expect(postgresSessionGuard(statements('SELECT pg_try_advisory_lock_shared(1, 2)'))).toEqual({ save: [], restore: ['SELECT pg_advisory_unlock_all()'] });
    expect(postgresSessionGuard(statements('SELECT pg_advisory_xact_lock(42)'))).toBeUndefined();
  });

  it('MySQL and MariaDB: named locks', () => {
    expect(mysqlSessionGuard(statements("DO GET_LOCK('backfill', 10)"))).toEqual({ save: [], restore: ['DO RELEASE_ALL_LOCKS()'] });
  });
});
