"""Builds a PyTorch network from a gpusweep NAS architecture (docs/nas.md, schema 1).

The architecture is a stack of blocks; each block is a cell, a DAG of nodes:

    {"schema": 1,
     "blocks": [{"adjacency": [[1, 3], [2], [3], []],
                 "nodes": [{"type": "conv", "filters": 16, "kernel": 3, "activation": "relu"},
                           {"type": "sep_conv", "filters": 16, "kernel": 5, "activation": "relu6"},
                           {"type": "pooling", "pool": "max", "kernel": 3},
                           {"type": "conv", "filters": 32, "kernel": 1, "activation": "leakyrelu"}]},
                ...]}

adjacency[i] lists the nodes node i feeds. Node 0 takes the block's input; a node with
several predecessors gets their outputs concatenated on channels; the block's output
is the concatenation (in node order) of the nodes that feed no other node.
Operations, all keeping the spatial size (stride 1, "same" padding):
  conv      Conv2d(k, filters) + BatchNorm + activation
  sep_conv  depthwise Conv2d(k, groups = input channels) + pointwise 1x1 Conv2d(filters)
            + BatchNorm + activation
  pooling   avg or max pool (k, stride 1); output channels = input channels. Even
            kernels pad one more on the right/bottom; padding repeats the edge pixels.
  activation: relu, leakyrelu (slope 0.01), relu6.
Between blocks a 2x2 max pool halves the spatial size; after the last block a global
average pool and a linear classifier.

parse_architecture() checks everything above and raises ArchitectureError naming the
offending place (e.g. "blocks[1].nodes[2].kernel"), so a malformed architecture fails
the trial with a message instead of a stack trace deep in PyTorch.
"""

import json

import torch
from torch import nn
import torch.nn.functional as F

SCHEMA = 1
ACTIVATIONS = {"relu": nn.ReLU, "leakyrelu": nn.LeakyReLU, "relu6": nn.ReLU6}
POOLS = ("avg", "max")
OP_TYPES = ("conv", "sep_conv", "pooling")


class ArchitectureError(ValueError):
    """The architecture JSON does not follow schema 1; the message names where."""


def _require(condition, where, message):
    if not condition:
        raise ArchitectureError("architecture %s: %s" % (where, message))


def _positive_int(node, key, where):
    value = node.get(key)
    _require(isinstance(value, int) and not isinstance(value, bool) and value >= 1,
             "%s.%s" % (where, key), "expected a positive integer, got %s" % json.dumps(value))
    return value


def _choice(node, key, allowed, where):
    value = node.get(key)
    _require(value in allowed, "%s.%s" % (where, key),
             "expected one of %s, got %s" % (", ".join(allowed), json.dumps(value)))
    return value


def _check_node(node, where):
    """Returns the node as a validated dict {type, ...} (extra keys are ignored)."""
    _require(isinstance(node, dict), where, "expected an object, got %s" % json.dumps(node))
    kind = _choice(node, "type", OP_TYPES, where)
    if kind == "pooling":
        return {"type": kind, "pool": _choice(node, "pool", POOLS, where),
                "kernel": _positive_int(node, "kernel", where)}
    return {"type": kind, "filters": _positive_int(node, "filters", where),
            "kernel": _positive_int(node, "kernel", where),
            "activation": _choice(node, "activation", tuple(ACTIVATIONS), where)}


def _topological_order(successors, where):
    """Kahn's algorithm, lowest index first; raises on a cycle."""
    indegree = [0] * len(successors)
    for targets in successors:
        for j in targets:
            indegree[j] += 1
    ready = [i for i, d in enumerate(indegree) if d == 0]
    order = []
    while ready:
        i = min(ready)
        ready.remove(i)
        order.append(i)
        for j in successors[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                ready.append(j)
    _require(len(order) == len(successors), where + ".adjacency",
             "has a cycle through nodes %s" % sorted(set(range(len(successors))) - set(order)))
    return order


def _check_block(block, where):
    """Returns {"successors", "predecessors", "order", "nodes"} of a valid block."""
    _require(isinstance(block, dict), where, "expected an object, got %s" % json.dumps(block))
    adjacency, nodes = block.get("adjacency"), block.get("nodes")
    _require(isinstance(adjacency, list) and adjacency, where + ".adjacency",
             "expected a non-empty list of lists, got %s" % json.dumps(adjacency))
    _require(isinstance(nodes, list) and len(nodes) == len(adjacency), where + ".nodes",
             "expected a list of %d nodes (one per adjacency entry), got %s"
             % (len(adjacency), json.dumps(nodes)))
    n = len(adjacency)
    predecessors = [[] for _ in range(n)]
    for i, targets in enumerate(adjacency):
        at = "%s.adjacency[%d]" % (where, i)
        _require(isinstance(targets, list), at, "expected a list of node indices, got %s"
                 % json.dumps(targets))
        for j in targets:
            _require(isinstance(j, int) and not isinstance(j, bool) and 0 <= j < n, at,
                     "node index %s is not in 0..%d" % (json.dumps(j), n - 1))
            _require(j != i, at, "node %d feeds itself" % i)
            _require(j != 0, at, "node 0 takes the block's input and cannot be fed")
            _require(i not in predecessors[j], at, "lists node %d twice" % j)
            predecessors[j].append(i)
    for j in range(1, n):
        _require(predecessors[j], "%s.adjacency" % where,
                 "node %d has no predecessor (only node 0 takes the block's input)" % j)
    return {"successors": [list(t) for t in adjacency],
            "predecessors": [sorted(p) for p in predecessors],
            "order": _topological_order(adjacency, where),
            "nodes": [_check_node(node, "%s.nodes[%d]" % (where, i))
                      for i, node in enumerate(nodes)]}


def parse_architecture(value):
    """Validates an architecture (a dict, or its JSON text) against schema 1.

    Returns a list of checked blocks (see _check_block). Raises ArchitectureError.
    """
    if isinstance(value, (str, bytes)):
        try:
            value = json.loads(value)
        except ValueError as e:
            raise ArchitectureError("architecture is not valid JSON: %s" % e) from None
    _require(isinstance(value, dict), "", "expected a JSON object, got %s"
             % type(value).__name__)
    _require(value.get("schema") == SCHEMA, "schema", "expected %d, got %s"
             % (SCHEMA, json.dumps(value.get("schema"))))
    blocks = value.get("blocks")
    _require(isinstance(blocks, list) and blocks, "blocks",
             "expected a non-empty list of blocks, got %s" % json.dumps(blocks))
    return [_check_block(block, "blocks[%d]" % b) for b, block in enumerate(blocks)]


class SamePool(nn.Module):
    """Stride-1 pooling that keeps the spatial size for any kernel (edge padding)."""

    def __init__(self, pool, kernel):
        super().__init__()
        self.pool, self.kernel = pool, kernel
        left = (kernel - 1) // 2
        self.padding = (left, kernel - 1 - left, left, kernel - 1 - left)

    def forward(self, x):
        if self.kernel > 1:
            x = F.pad(x, self.padding, mode="replicate")
        fn = F.max_pool2d if self.pool == "max" else F.avg_pool2d
        return fn(x, self.kernel, stride=1)


def make_operation(node, in_channels):
    """Returns (module, output channels) for one checked node."""
    if node["type"] == "pooling":
        return SamePool(node["pool"], node["kernel"]), in_channels
    filters, kernel = node["filters"], node["kernel"]
    if node["type"] == "conv":
        layers = [nn.Conv2d(in_channels, filters, kernel, padding="same", bias=False)]
    else:
        layers = [nn.Conv2d(in_channels, in_channels, kernel, padding="same",
                            groups=in_channels, bias=False),
                  nn.Conv2d(in_channels, filters, 1, bias=False)]
    layers += [nn.BatchNorm2d(filters), ACTIVATIONS[node["activation"]]()]
    return nn.Sequential(*layers), filters


class Cell(nn.Module):
    """One block: runs the nodes in topological order, concatenating inputs."""

    def __init__(self, block, in_channels):
        super().__init__()
        self.order = block["order"]
        self.predecessors = block["predecessors"]
        self.outputs = [i for i, s in enumerate(block["successors"]) if not s]
        channels = [0] * len(self.order)
        ops = [None] * len(self.order)
        for i in self.order:
            node_in = in_channels if i == 0 else sum(channels[p] for p in self.predecessors[i])
            ops[i], channels[i] = make_operation(block["nodes"][i], node_in)
        self.ops = nn.ModuleList(ops)
        self.out_channels = sum(channels[i] for i in self.outputs)

    def forward(self, x):
        values = [None] * len(self.order)
        for i in self.order:
            preds = self.predecessors[i]
            inp = x if i == 0 else (values[preds[0]] if len(preds) == 1 else
                                    torch.cat([values[p] for p in preds], dim=1))
            values[i] = self.ops[i](inp)
        if len(self.outputs) == 1:
            return values[self.outputs[0]]
        return torch.cat([values[i] for i in self.outputs], dim=1)


class Network(nn.Module):
    """Cells separated by 2x2 max pools, then global average pool and a linear layer."""

    def __init__(self, blocks, in_channels=1, classes=10):
        super().__init__()
        cells, channels = [], in_channels
        for block in blocks:
            cells.append(Cell(block, channels))
            channels = cells[-1].out_channels
        self.cells = nn.ModuleList(cells)
        self.classifier = nn.Linear(channels, classes)

    def forward(self, x):
        for b, cell in enumerate(self.cells):
            if b > 0:
                x = F.max_pool2d(x, 2)
            x = cell(x)
        return self.classifier(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def build_network(architecture, in_channels=1, classes=10):
    """Returns a Network for an architecture (dict or JSON text); raises ArchitectureError."""
    return Network(parse_architecture(architecture), in_channels, classes)
