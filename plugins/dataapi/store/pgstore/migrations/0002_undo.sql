-- The undo log (docs/data-api.md, "Reorganisations"): what a write with
-- store.Batch.Undo changed, block by block, so that a chain's blocks from
-- a fork on can be rolled back. The writer sets dataapi.undo_block (SET
-- LOCAL, set_config(..., true)) to the block whose rows it writes; while
-- it is set, a trigger on every data table logs each row changed: the row
-- as it was (existed), or the key of a row that did not exist. Unset, the
-- triggers' WHEN condition skips them: other writes log nothing.
CREATE TABLE undo_log (
    chain    integer NOT NULL,
    block    bigint  NOT NULL,
    seq      bigint  GENERATED ALWAYS AS IDENTITY,
    tbl      regclass NOT NULL,
    existed  boolean NOT NULL,
    row_data jsonb   NOT NULL, -- existed: the row before; else the new row's key columns
    PRIMARY KEY (chain, block, seq)
);

CREATE FUNCTION undo_log_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    n bigint := current_setting('dataapi.undo_block')::bigint;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO undo_log (chain, block, tbl, existed, row_data) VALUES (NEW.chain, n, TG_RELID, false, to_jsonb(NEW) - 'record');
    ELSE
        INSERT INTO undo_log (chain, block, tbl, existed, row_data) VALUES (OLD.chain, n, TG_RELID, true, to_jsonb(OLD));
    END IF;
    RETURN NULL;
END $$;

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['blocks', 'txs', 'address_txs', 'address_erc721', 'address_erc1155', 'address_internal',
        'erc20_holdings', 'erc20_history', 'erc1155_holdings', 'erc1155_history', 'collectibles', 'deployments',
        'contracts', 'tokens', 'nfts', 'address_chains'] LOOP
        EXECUTE format('CREATE TRIGGER undo_log AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW
            WHEN (current_setting(''dataapi.undo_block'', true) <> '''') EXECUTE FUNCTION undo_log_row()', t);
    END LOOP;
END $$;

-- undo_rollback applies the undo log of chain c from block from_block on,
-- newest change first, and drops it: every row changed ends as it was
-- before the oldest of those blocks. Its own changes are not logged.
CREATE FUNCTION undo_rollback(c integer, from_block bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    e record;
    match text;
    matches jsonb := '{}';
BEGIN
    FOR e IN SELECT tbl, existed, row_data FROM undo_log WHERE chain = c AND block >= from_block ORDER BY block DESC, seq DESC LOOP
        match := matches ->> e.tbl::text;
        IF match IS NULL THEN
            -- t.k1 = r.k1 AND ... over the table's primary key
            SELECT string_agg(format('t.%1$I = r.%1$I', a.attname), ' AND ') INTO match
            FROM pg_index x JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = ANY (x.indkey)
            WHERE x.indrelid = e.tbl AND x.indisprimary;
            matches := matches || jsonb_build_object(e.tbl::text, match);
        END IF;
        EXECUTE format('DELETE FROM %s t USING jsonb_populate_record(NULL::%s, $1) r WHERE %s', e.tbl, e.tbl, match) USING e.row_data;
        IF e.existed THEN
            EXECUTE format('INSERT INTO %s SELECT * FROM jsonb_populate_record(NULL::%s, $1)', e.tbl, e.tbl) USING e.row_data;
        END IF;
    END LOOP;
    DELETE FROM undo_log WHERE chain = c AND block >= from_block;
END $$;
