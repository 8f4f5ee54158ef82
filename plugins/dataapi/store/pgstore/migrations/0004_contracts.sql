-- A token contract's transfers, of any standard, for
-- /v1/chains/{chainId}/tokens/{address}/transfers (docs/data-api.md): the
-- embedded store's tTokenXfer. Rows of the transactions stored before
-- this version are written by the migration's Go step (contracts.go),
-- which logs them in undo_log for the blocks that have undo records.
CREATE TABLE token_transfers (
    chain       integer NOT NULL,
    token       bytea   NOT NULL,
    block       bigint  NOT NULL,
    tx_index    integer NOT NULL,
    log_index   integer NOT NULL,
    batch_index integer NOT NULL,
    record      bytea   NOT NULL,
    PRIMARY KEY (chain, token, block, tx_index, log_index, batch_index)
);

CREATE TRIGGER undo_log AFTER INSERT OR UPDATE OR DELETE ON token_transfers FOR EACH ROW
    WHEN (current_setting('dataapi.undo_block', true) <> '') EXECUTE FUNCTION undo_log_row();
