-- The chain's transaction lists and an address's native and ERC-20 lists
-- (docs/data-api.md, endpoints 28 to 34). The rows of the transactions
-- written before this version are backfilled by the writer when it opens
-- the database (backfill.go): the backfills table says which are left.

-- A chain's transactions, bare (no input, transfers or internal
-- transactions): all of them by the primary key, those of one status by
-- the index.
CREATE TABLE chain_txs (
    chain    integer NOT NULL,
    block    bigint  NOT NULL,
    tx_index integer NOT NULL,
    success  boolean NOT NULL,
    record   bytea   NOT NULL,
    PRIMARY KEY (chain, block, tx_index)
);
CREATE INDEX chain_txs_by_status ON chain_txs (chain, success, block, tx_index);

-- The transactions each address sent or received (as the recipient or the
-- contract created), bare.
CREATE TABLE address_native (
    chain    integer NOT NULL,
    address  bytea   NOT NULL,
    block    bigint  NOT NULL,
    tx_index integer NOT NULL,
    record   bytea   NOT NULL,
    PRIMARY KEY (chain, address, block, tx_index)
);

-- The ERC-20 transfers of each sender and recipient.
CREATE TABLE address_erc20 (
    chain     integer NOT NULL,
    address   bytea   NOT NULL,
    block     bigint  NOT NULL,
    tx_index  integer NOT NULL,
    log_index integer NOT NULL,
    record    bytea   NOT NULL,
    PRIMARY KEY (chain, address, block, tx_index, log_index)
);

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['chain_txs', 'address_native', 'address_erc20'] LOOP
        EXECUTE format('CREATE TRIGGER undo_log AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW
            WHEN (current_setting(''dataapi.undo_block'', true) <> '''') EXECUTE FUNCTION undo_log_row()', t);
    END LOOP;
END $$;

-- Rows derived from the transactions that a writer makes of those written
-- before: position is the chain's tag and the hash of the last
-- transaction done.
CREATE TABLE backfills (
    name        text        PRIMARY KEY,
    position    bytea       NOT NULL DEFAULT '',
    records     bigint      NOT NULL DEFAULT 0,
    finished_at timestamptz
);
INSERT INTO backfills (name) SELECT 'evmlists' WHERE EXISTS (SELECT 1 FROM txs);
