// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// Minimal token contracts for the data API conformance suite: each emits
// exactly the events of its standard (ERC-20, ERC-721, ERC-1155) and
// answers ERC-165 the way the data API's contract probe expects.

/// An ERC-20 token whose deployer mints and whose holders burn.
contract SuiteToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    address public immutable owner;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 supply) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        owner = msg.sender;
        _mint(msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        allowance[from][msg.sender] -= value;
        _move(from, to, value);
        return true;
    }

    function mint(address to, uint256 value) external {
        require(msg.sender == owner, "not the owner");
        _mint(to, value);
    }

    function burn(uint256 value) external {
        balanceOf[msg.sender] -= value;
        totalSupply -= value;
        emit Transfer(msg.sender, address(0), value);
    }

    function _mint(address to, uint256 value) internal {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function _move(address from, address to, uint256 value) internal {
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}

interface IERC721Receiver {
    function onERC721Received(address operator, address from, uint256 id, bytes calldata data) external returns (bytes4);
}

/// An ERC-721 collection whose deployer mints each token with its URI.
contract SuiteNFT {
    string public name = "Suite Collectibles";
    string public symbol = "SNFT";
    address public immutable owner = msg.sender;
    mapping(uint256 => address) private owners;
    mapping(address => uint256) public balanceOf;
    mapping(uint256 => address) public getApproved;
    mapping(address => mapping(address => bool)) public isApprovedForAll;
    mapping(uint256 => string) private uris;

    event Transfer(address indexed from, address indexed to, uint256 indexed id);
    event Approval(address indexed owner, address indexed approved, uint256 indexed id);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7 || id == 0x80ac58cd || id == 0x5b5e139f; // ERC-165, ERC-721, metadata
    }

    function ownerOf(uint256 id) public view returns (address o) {
        o = owners[id];
        require(o != address(0), "no such token");
    }

    function tokenURI(uint256 id) external view returns (string memory) {
        ownerOf(id);
        return uris[id];
    }

    function mint(address to, uint256 id, string calldata uri) external {
        require(msg.sender == owner, "not the owner");
        require(owners[id] == address(0), "minted");
        uris[id] = uri;
        owners[id] = to;
        balanceOf[to]++;
        emit Transfer(address(0), to, id);
    }

    function burn(uint256 id) external {
        address o = ownerOf(id);
        require(msg.sender == o, "not the holder");
        delete owners[id];
        delete getApproved[id];
        balanceOf[o]--;
        emit Transfer(o, address(0), id);
    }

    function approve(address to, uint256 id) external {
        address o = ownerOf(id);
        require(msg.sender == o || isApprovedForAll[o][msg.sender], "not allowed");
        getApproved[id] = to;
        emit Approval(o, to, id);
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function transferFrom(address from, address to, uint256 id) public {
        require(ownerOf(id) == from, "not the holder");
        require(to != address(0), "to the zero address");
        require(msg.sender == from || getApproved[id] == msg.sender || isApprovedForAll[from][msg.sender], "not allowed");
        delete getApproved[id];
        balanceOf[from]--;
        balanceOf[to]++;
        owners[id] = to;
        emit Transfer(from, to, id);
    }

    function safeTransferFrom(address from, address to, uint256 id) external {
        safeTransferFrom(from, to, id, "");
    }

    function safeTransferFrom(address from, address to, uint256 id, bytes memory data) public {
        transferFrom(from, to, id);
        if (to.code.length > 0) {
            require(IERC721Receiver(to).onERC721Received(msg.sender, from, id, data) == IERC721Receiver.onERC721Received.selector, "refused");
        }
    }
}

/// An ERC-1155 collection whose deployer mints; a token's URI is its own
/// when one was set, otherwise the collection's {id} template.
contract SuiteMulti {
    string public constant template = "ipfs://suite-multi/{id}.json";
    address public immutable owner = msg.sender;
    mapping(uint256 => mapping(address => uint256)) public balances;
    mapping(address => mapping(address => bool)) public isApprovedForAll;
    mapping(uint256 => string) private uris;

    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);
    event ApprovalForAll(address indexed account, address indexed operator, bool approved);
    event URI(string value, uint256 indexed id);

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7 || id == 0xd9b67a26 || id == 0x0e89341c; // ERC-165, ERC-1155, metadata URI
    }

    function uri(uint256 id) external view returns (string memory) {
        return bytes(uris[id]).length > 0 ? uris[id] : template;
    }

    function balanceOf(address account, uint256 id) external view returns (uint256) {
        return balances[id][account];
    }

    function setURI(uint256 id, string calldata value) external {
        require(msg.sender == owner, "not the owner");
        uris[id] = value;
        emit URI(value, id);
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function mint(address to, uint256 id, uint256 value) external {
        require(msg.sender == owner, "not the owner");
        balances[id][to] += value;
        emit TransferSingle(msg.sender, address(0), to, id, value);
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata values) external {
        require(msg.sender == owner, "not the owner");
        require(ids.length == values.length, "lengths");
        for (uint256 i = 0; i < ids.length; i++) {
            balances[ids[i]][to] += values[i];
        }
        emit TransferBatch(msg.sender, address(0), to, ids, values);
    }

    function burn(address from, uint256 id, uint256 value) external {
        require(msg.sender == from || isApprovedForAll[from][msg.sender], "not allowed");
        balances[id][from] -= value;
        emit TransferSingle(msg.sender, from, address(0), id, value);
    }

    // Transfers to contracts are not used by the suite, so the receiver
    // hooks are not called.
    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata) external {
        require(msg.sender == from || isApprovedForAll[from][msg.sender], "not allowed");
        require(to != address(0), "to the zero address");
        balances[id][from] -= value;
        balances[id][to] += value;
        emit TransferSingle(msg.sender, from, to, id, value);
    }

    function safeBatchTransferFrom(address from, address to, uint256[] calldata ids, uint256[] calldata values, bytes calldata) external {
        require(msg.sender == from || isApprovedForAll[from][msg.sender], "not allowed");
        require(to != address(0), "to the zero address");
        require(ids.length == values.length, "lengths");
        for (uint256 i = 0; i < ids.length; i++) {
            balances[ids[i]][from] -= values[i];
            balances[ids[i]][to] += values[i];
        }
        emit TransferBatch(msg.sender, from, to, ids, values);
    }
}
