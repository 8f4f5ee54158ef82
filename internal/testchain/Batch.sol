// SPDX-License-Identifier: MIT
// An ERC-1155 token with batch mints and transfers and a burn, for the
// chains internal/testchain generates (Tokens.sol's Token1155 has single
// transfers only). The bytecode in batch.json was produced by, in a
// temporary directory:
//   npm install solc@0.8.28 && npx solcjs --bin --abi --optimize Batch.sol (default EVM version cancun)
//   node -e 'const fs=require("fs"),p="Batch_sol_Token1155Batch";fs.writeFileSync("batch.json",JSON.stringify(
//     {Token1155Batch:{abi:JSON.parse(fs.readFileSync(p+".abi")),bin:"0x"+fs.readFileSync(p+".bin","utf8")}},null,1)+"\n")'
// (the generator compiles nothing).
pragma solidity 0.8.28;

contract Token1155Batch {
    mapping(uint256 => mapping(address => uint256)) public balanceOf;

    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata values) external {
        require(ids.length == values.length, "lengths differ");
        for (uint256 i = 0; i < ids.length; i++) {
            balanceOf[ids[i]][to] += values[i];
        }
        emit TransferBatch(msg.sender, address(0), to, ids, values);
    }

    function safeBatchTransferFrom(address from, address to, uint256[] calldata ids, uint256[] calldata values, bytes calldata) external {
        require(msg.sender == from, "not allowed");
        require(ids.length == values.length, "lengths differ");
        for (uint256 i = 0; i < ids.length; i++) {
            require(balanceOf[ids[i]][from] >= values[i], "balance too low");
            balanceOf[ids[i]][from] -= values[i];
            balanceOf[ids[i]][to] += values[i];
        }
        emit TransferBatch(msg.sender, from, to, ids, values);
    }

    function burn(uint256 id, uint256 value) external {
        require(balanceOf[id][msg.sender] >= value, "balance too low");
        balanceOf[id][msg.sender] -= value;
        emit TransferSingle(msg.sender, msg.sender, address(0), id, value);
    }

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0xd9b67a26 || id == 0x01ffc9a7;
    }

    function uri(uint256) external pure returns (string memory) {
        return "ipfs://batch/{id}";
    }
}
