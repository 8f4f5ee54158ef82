// What the search box finds: the page of an address, a transaction, a
// block (by number or hash) on the node's chains and the external chains
// of the data API.
import { atomic, avm, evm, evmChains, platform } from './api.js';

const evmAddress = /^0x[0-9a-fA-F]{40}$/;
const hash32 = /^0x[0-9a-fA-F]{64}$/;
const number = /^\d+$/;
const cb58 = /^[1-9A-HJ-NP-Za-km-z]{40,60}$/;

// utxoAddress is an address of the X- and P-Chains: X-, P- or no chain
// prefix, then the bech32 form (its HRP, 1, 38 characters).
export const utxoAddress = /^(?:([XP])-)?([a-z]+1[02-9ac-hj-np-z]{38})$/;

// resolve answers the route of q, or '' when nothing matches. It asks the
// chains' JSON-RPC, which answers a miss with a result, not an error
// status.
export async function resolve(q) {
  if (evmAddress.test(q) || utxoAddress.test(q)) return `address/${q}`;
  const chains = await evmChains();
  if (number.test(q)) {
    for (const c of chains) {
      const head = BigInt(await evm(c, 'eth_blockNumber'));
      if (BigInt(q) <= head) return `chain/${c.alias}/block/${q}`;
    }
    return '';
  }
  if (hash32.test(q)) {
    for (const c of chains) {
      if (await evm(c, 'eth_getTransactionByHash', q)) return `chain/${c.alias}/tx/${q.toLowerCase()}`;
      if (await evm(c, 'eth_getBlockByHash', q, false)) return `chain/${c.alias}/block/${q.toLowerCase()}`;
    }
    return '';
  }
  if (cb58.test(q)) {
    if (await found(() => avm('getTx', { txID: q, encoding: 'json' }))) return `x/tx/${q}`;
    for (const c of chains.filter((c) => !c.external)) {
      if (await found(() => atomic(c.alias, 'getAtomicTx', { txID: q }))) return `chain/${c.alias}/tx/${q}`;
    }
    if (await found(() => platform('getL1Validator', { validationID: q }))) return `p/l1/${q}`;
  }
  return '';
}

// found reports whether call answers; a miss is a JSON-RPC error.
async function found(call) {
  try {
    await call();
    return true;
  } catch {
    return false;
  }
}
