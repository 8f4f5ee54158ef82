// Package methods names the 4-byte method selectors of common contract
// calls (ERC-20, ERC-721, ERC-1155, WAVAX/WETH, multicall, Uniswap-style
// routers, Ownable, proxies, Safe, Teleporter), for the methodName of a
// transaction. A selector outside the table has no name.
package methods

// Name returns the signature of the method whose selector is the first
// four bytes of input, like "transfer(address,uint256)".
func Name(input []byte) (string, bool) {
	if len(input) < 4 {
		return "", false
	}
	sig, ok := table[uint32(input[0])<<24|uint32(input[1])<<16|uint32(input[2])<<8|uint32(input[3])]
	return sig, ok
}

// table maps selectors to signatures; the test checks every selector
// against the Keccak-256 of its signature.
var table = map[uint32]string{
	0xe8e33700: "addLiquidity(address,address,uint256,uint256,uint256,uint256,address,uint256)",
	0xf91b3f72: "addLiquidityAVAX(address,uint256,uint256,uint256,address,uint256)",
	0xf305d719: "addLiquidityETH(address,uint256,uint256,uint256,address,uint256)",
	0x252dba42: "aggregate((address,bytes)[])",
	0x82ad56cb: "aggregate3((address,bool,bytes)[])",
	0x095ea7b3: "approve(address,uint256)",
	0x9dc29fac: "burn(address,uint256)",
	0x42966c68: "burn(uint256)",
	0x6b20c454: "burnBatch(address,uint256[],uint256[])",
	0x79cc6790: "burnFrom(address,uint256)",
	0x4e71d92d: "claim()",
	0xc9c65396: "createPair(address,address)",
	0xa457c2d7: "decreaseAllowance(address,uint256)",
	0xd0e30db0: "deposit()",
	0xb6b55f25: "deposit(uint256)",
	0xc04b8d59: "exactInput((bytes,address,uint256,uint256,uint256))",
	0x414bf389: "exactInputSingle((address,address,uint24,address,uint256,uint256,uint256,uint160))",
	0xf28c0498: "exactOutput((bytes,address,uint256,uint256,uint256))",
	0xdb3e2198: "exactOutputSingle((address,address,uint24,address,uint256,uint256,uint256,uint160))",
	0x6a761202: "execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)",
	0x24856bc3: "execute(bytes,bytes[])",
	0x3593564c: "execute(bytes,bytes[],uint256)",
	0x2f2ff15d: "grantRole(bytes32,address)",
	0x39509351: "increaseAllowance(address,uint256)",
	0x8129fc1c: "initialize()",
	0x6a627842: "mint(address)",
	0x40c10f19: "mint(address,uint256)",
	0x731133e9: "mint(address,uint256,uint256,bytes)",
	0xa0712d68: "mint(uint256)",
	0x1f7fdffa: "mintBatch(address,uint256[],uint256[],bytes)",
	0xac9650d8: "multicall(bytes[])",
	0x5ae401dc: "multicall(uint256,bytes[])",
	0x8456cb59: "pause()",
	0xd505accf: "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)",
	0xccb5f809: "receiveCrossChainMessage(uint32,address)",
	0xbaa2abde: "removeLiquidity(address,address,uint256,uint256,uint256,address,uint256)",
	0x33c6b725: "removeLiquidityAVAX(address,uint256,uint256,uint256,address,uint256)",
	0x02751cec: "removeLiquidityETH(address,uint256,uint256,uint256,address,uint256)",
	0x715018a6: "renounceOwnership()",
	0xd547741f: "revokeRole(bytes32,address)",
	0x2eb2c2d6: "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
	0x40d097c3: "safeMint(address)",
	0xd204c45e: "safeMint(address,string)",
	0xa1448194: "safeMint(address,uint256)",
	0x42842e0e: "safeTransferFrom(address,address,uint256)",
	0xb88d4fde: "safeTransferFrom(address,address,uint256,bytes)",
	0xf242432a: "safeTransferFrom(address,address,uint256,uint256,bytes)",
	0x62448850: "sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))",
	0xa22cb465: "setApprovalForAll(address,bool)",
	0x55f804b3: "setBaseURI(string)",
	0xa694fc3a: "stake(uint256)",
	0x8a657e67: "swapAVAXForExactTokens(uint256,address[],address,uint256)",
	0xfb3bdb41: "swapETHForExactTokens(uint256,address[],address,uint256)",
	0xa2a1623d: "swapExactAVAXForTokens(uint256,address[],address,uint256)",
	0x7ff36ab5: "swapExactETHForTokens(uint256,address[],address,uint256)",
	0x676528d1: "swapExactTokensForAVAX(uint256,uint256,address[],address,uint256)",
	0x18cbafe5: "swapExactTokensForETH(uint256,uint256,address[],address,uint256)",
	0x38ed1739: "swapExactTokensForTokens(uint256,uint256,address[],address,uint256)",
	0x7a42416a: "swapTokensForExactAVAX(uint256,uint256,address[],address,uint256)",
	0x4a25d94a: "swapTokensForExactETH(uint256,uint256,address[],address,uint256)",
	0x8803dbee: "swapTokensForExactTokens(uint256,uint256,address[],address,uint256)",
	0xa9059cbb: "transfer(address,uint256)",
	0x23b872dd: "transferFrom(address,address,uint256)",
	0xf2fde38b: "transferOwnership(address)",
	0xbce38bd7: "tryAggregate(bool,(address,bytes)[])",
	0x3f4ba83a: "unpause()",
	0x2e17de78: "unstake(uint256)",
	0x3659cfe6: "upgradeTo(address)",
	0x4f1ef286: "upgradeToAndCall(address,bytes)",
	0x3ccfd60b: "withdraw()",
	0x2e1a7d4d: "withdraw(uint256)",
}
