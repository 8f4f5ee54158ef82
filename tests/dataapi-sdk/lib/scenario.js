// The scenario: transactions on the EVM chain that give the data API
// something of every kind to index. The suite does not trust what the
// scenario meant to do: it reads back what the chain did (lib/oracle.js).
import { getAddress, keccak256, parseEther, slice, stringToHex, toHex } from "viem";
import { generatePrivateKey } from "viem/accounts";

import { FUNDED_KEY } from "./chain.js";

/** A data: URI holding a JSON document, base64 or percent-encoded. */
function dataURI(doc, base64) {
  const json = JSON.stringify(doc);
  return base64
    ? `data:application/json;base64,${Buffer.from(json).toString("base64")}`
    : `data:application/json,${encodeURIComponent(json)}`;
}

/**
 * Runs the scenario on chain with the compiled contracts. Returns the
 * wallets and contract addresses it used and the blocks it spans.
 */
export async function runScenario(chain, contracts) {
  const { SuiteToken, SuiteNFT, SuiteMulti, Factory, Bouncer, Child, Failing } = contracts;
  const deployer = chain.wallet(FUNDED_KEY);
  // Fresh addresses every run, so that the suite can also run against a
  // node that ran it before.
  const [alice, bob, carol, dave] = [0, 1, 2, 3].map(() => chain.wallet(generatePrivateKey()));
  const first = (await chain.client.getBlockNumber()) + 1n;
  const ok = async (sent) => {
    const r = await chain.mined(sent);
    if (r.status !== "success") {
      throw new Error(`scenario transaction ${r.transactionHash} failed`);
    }
    return r;
  };
  const okBlock = async (...sends) => {
    const rs = await chain.oneBlock(...sends);
    const bad = rs.find((r) => r.status !== "success");
    if (bad) {
      throw new Error(`scenario transaction ${bad.transactionHash} failed`);
    }
    return rs;
  };
  const deploy = async (c, args) => (await ok(deployer.deploy(c, args))).contractAddress;
  const t = {};

  // Native transfers of every transaction type, in one block.
  await okBlock(
    () => deployer.send({ to: alice.address, value: parseEther("10"), type: "legacy", gas: 21_000n }),
    () => deployer.send({ to: bob.address, value: parseEther("10"), type: "eip2930", gas: 21_000n }),
    () => deployer.send({ to: carol.address, value: parseEther("10"), gas: 21_000n }),
    () => deployer.send({ to: dave.address, value: parseEther("10"), gas: 21_000n }),
  );

  // ERC-20: two tokens; transfers, a transferFrom, a mint and a burn.
  t.token = await deploy(SuiteToken, ["Suite Token", "SUT", 18, parseEther("1000000")]);
  t.dollar = await deploy(SuiteToken, ["Suite Dollar", "SUSD", 6, 5_000_000_000_000n]);
  const erc20 = (w, token, fn, args, opts) => w.invoke(SuiteToken, token, fn, args, opts);
  await okBlock(
    () => erc20(deployer, t.token, "transfer", [alice.address, parseEther("1000")]),
    () => erc20(deployer, t.token, "transfer", [bob.address, parseEther("500")], { type: "legacy" }),
    () => erc20(deployer, t.dollar, "transfer", [alice.address, 42_000_000n]),
  );
  await ok(erc20(alice, t.token, "transfer", [bob.address, parseEther("100")]));
  await ok(erc20(deployer, t.token, "mint", [carol.address, parseEther("250")]));
  await ok(erc20(bob, t.token, "burn", [parseEther("50")], { type: "eip2930" }));
  await ok(erc20(alice, t.token, "approve", [dave.address, parseEther("300")]));
  await ok(erc20(dave, t.token, "transferFrom", [alice.address, carol.address, parseEther("200")]));
  await ok(erc20(alice, t.dollar, "transfer", [carol.address, 2_000_000n]));

  // ERC-721: mints (one with a data: URI the module reads, one remote, one
  // with a token ID above 64 bits), transfers, a burn.
  t.nft = await deploy(SuiteNFT, []);
  const bigID = 2n ** 160n + 7n;
  const nftDoc = {
    name: "Suite #1",
    description: "A token of the conformance suite",
    image: "ipfs://suite/1.png",
    external_url: "https://example.com/suite/1",
    background_color: "00ff00",
    attributes: [{ trait_type: "colour", value: "green" }, { trait_type: "level", value: 3 }],
  };
  await okBlock(
    () => deployer.invoke(SuiteNFT, t.nft, "mint", [alice.address, 1n, dataURI(nftDoc, true)], { gas: 1_000_000n }),
    () => deployer.invoke(SuiteNFT, t.nft, "mint", [bob.address, 2n, "ipfs://suite-nft/2.json"]),
    () => deployer.invoke(SuiteNFT, t.nft, "mint", [dave.address, bigID, "https://example.com/suite/big.json"]),
    // URIs the data API cannot read metadata from.
    () => deployer.invoke(SuiteNFT, t.nft, "mint", [carol.address, 4n, ""]),
    () => deployer.invoke(SuiteNFT, t.nft, "mint", [carol.address, 5n, "ar://suite/5"]),
  );
  await ok(alice.invoke(SuiteNFT, t.nft, "safeTransferFrom", [alice.address, carol.address, 1n]));
  await ok(bob.invoke(SuiteNFT, t.nft, "transferFrom", [bob.address, dave.address, 2n]));
  await ok(dave.invoke(SuiteNFT, t.nft, "burn", [2n]));

  // ERC-1155: single and batch mints, transfers and a burn; token 1 has a
  // data: URI of its own, tokens 2 and 3 the collection's {id} template.
  t.multi = await deploy(SuiteMulti, []);
  const multiDoc = { name: "Suite Gold", description: "Fungible gold", decimals: 2, properties: { rarity: "common" } };
  await okBlock(
    () => deployer.invoke(SuiteMulti, t.multi, "setURI", [1n, dataURI(multiDoc, false)], { gas: 1_000_000n }),
    () => deployer.invoke(SuiteMulti, t.multi, "mint", [deployer.address, 1n, 100n]),
    () => deployer.invoke(SuiteMulti, t.multi, "mintBatch", [alice.address, [2n, 3n], [5n, 7n]]),
    // Documents the data API cannot read: not JSON, and JSON but not an object.
    () => deployer.invoke(SuiteMulti, t.multi, "setURI", [4n, `data:application/json,${encodeURIComponent("{not json")}`]),
    () => deployer.invoke(SuiteMulti, t.multi, "setURI", [5n, dataURI([1, 2], true)]),
    () => deployer.invoke(SuiteMulti, t.multi, "mintBatch", [dave.address, [4n, 5n], [1n, 2n]]),
  );
  await ok(deployer.invoke(SuiteMulti, t.multi, "safeTransferFrom", [deployer.address, bob.address, 1n, 30n, "0x"]));
  await ok(alice.invoke(SuiteMulti, t.multi, "safeBatchTransferFrom", [alice.address, carol.address, [2n, 3n], [2n, 7n], "0x"]));
  await ok(bob.invoke(SuiteMulti, t.multi, "burn", [bob.address, 1n, 10n]));

  // Internal transactions: creations by CREATE, CREATE2 and CREATE3 that
  // carry value, value calls, calls undone inside successful transactions,
  // a failed CREATE2, a CALLCODE, and frames that are not listed.
  [t.factory, t.bouncer] = (
    await okBlock(
      () => deployer.deploy(Factory, []),
      () => deployer.deploy(Bouncer, []),
    )
  ).map((r) => r.contractAddress);
  const salt = (s) => keccak256(stringToHex(s));
  const factory = (w, fn, args, value) => w.invoke(Factory, t.factory, fn, args, { value, gas: 1_000_000n });
  await okBlock(
    () => factory(deployer, "make", [parseEther("1")], parseEther("1")),
    () => factory(deployer, "make2", [salt("two"), parseEther("0.5")], parseEther("0.5")),
    () => factory(deployer, "make3", [salt("three")], parseEther("0.25")),
  );
  t.child = getAddress(slice((await ok(factory(deployer, "make", [0n], 0n))).logs.at(-1).data, 12));
  await ok(
    factory(
      deployer,
      "pay",
      [
        [alice.address, bob.address, carol.address],
        [parseEther("0.01"), parseEther("0.02"), parseEther("0.03")],
      ],
      parseEther("0.06"),
    ),
  );
  await ok(factory(alice, "payOrKeep", [dave.address, t.bouncer, t.token, parseEther("0.02")], parseEther("0.04")));
  await okBlock(
    () => factory(deployer, "undone", [t.bouncer, carol.address], parseEther("0.03")),
    () => factory(deployer, "makeFailing", [salt("failing")], 5n),
    () => factory(deployer, "viaCallcode", [t.child, 1000n], 1000n),
    () => factory(deployer, "delegated", [t.child], 7n),
  );

  // Transactions that fail: a call and a creation.
  for (const send of [
    () => factory(deployer, "boom", [], parseEther("1")),
    () => deployer.deploy(Failing, [], { gas: 200_000n }),
  ]) {
    const r = await chain.mined(send());
    if (r.status !== "reverted") {
      throw new Error(`transaction ${r.transactionHash} meant to fail succeeded`);
    }
  }

  // Plain value transfers between the wallets, one to itself.
  await okBlock(
    () => alice.send({ to: bob.address, value: parseEther("0.1"), gas: 21_000n }),
    () => bob.send({ to: carol.address, value: parseEther("0.2"), gas: 21_000n, type: "legacy" }),
    () => carol.send({ to: dave.address, value: parseEther("0.3"), gas: 21_000n }),
    () => dave.send({ to: alice.address, value: parseEther("0.4"), gas: 21_000n }),
  );
  await ok(carol.send({ to: carol.address, value: 1n, gas: 21_000n }));
  // A transfer with a memo: input, so a call by the data API's rules.
  await ok(bob.send({ to: dave.address, value: 1n, data: toHex("hello"), gas: 30_000n }));

  // A block without transactions.
  await chain.emptyBlock();

  const last = await chain.client.getBlockNumber();
  return { wallets: { deployer, alice, bob, carol, dave }, contracts: t, first, last };
}
