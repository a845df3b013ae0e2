"""Which prefixes a batch shares, on hand-built token sequences."""

from __future__ import annotations

from readout_audit.model._prefix import execution_order, plan_prefixes, tail_groups


def test_each_context_reads_its_longest_shared_prefix_and_branch_points_are_nodes():
    trunk = tuple(range(100, 120))  # 20 tokens every context but the last opens with
    contexts = [
        (*trunk, 1, 2, 3),
        (*trunk, 1, 2, 4, 5),
        (*trunk, 7),
        (*trunk, 1, 2),  # a prefix of the first two
        (9,) * 30,
    ]
    plan = plan_prefixes(contexts, min_tokens=4)
    assert plan.depths == [22, 22, 20, 21, 0]  # the prefix of another keeps its last token
    assert plan.nodes == [trunk, (*trunk, 1), (*trunk, 1, 2)]
    assert plan.parents == [None, 0, 1]


def test_short_shared_prefixes_are_encoded_with_their_contexts():
    contexts = [(1, 2, 3, 4), (1, 2, 3, 5), (1, 2, 6)]
    plan = plan_prefixes(contexts, min_tokens=3)
    assert plan.depths == [3, 3, 0] and plan.nodes == [(1, 2, 3)] and plan.parents == [None]
    assert plan_prefixes(contexts, min_tokens=4).nodes == []
    branching = [(0,) * 5 + (1,) * 5 + (2,), (0,) * 5 + (1,) * 5 + (3,), (0,) * 5 + (4,) * 3]
    plan = plan_prefixes(branching, min_tokens=5)
    assert plan.nodes == [(0,) * 5, (0,) * 5 + (1,) * 5] and plan.parents == [None, 0]
    assert plan.depths == [10, 10, 5]


def test_a_context_alone_reads_the_prefix_the_last_batch_encoded():
    block = tuple(range(200, 230))
    kept = [(*block, 1, 2, 3), (5,) * 40]  # the last batch's nodes
    plan = plan_prefixes([(*block, 1, 9, 9)], min_tokens=16, known=kept)
    assert plan.depths == [31] and plan.nodes == [(*block, 1)] and plan.parents == [None]
    # a longer known prefix is read only up to the context's last token
    plan = plan_prefixes([(*block, 1)], min_tokens=16, known=kept)
    assert plan.depths == [30] and plan.nodes == [block]
    # two contexts sharing more with each other than with a known one read the longer
    contexts = [(*block, 4, 4, 4, 1), (*block, 4, 4, 4, 2)]
    plan = plan_prefixes(contexts, min_tokens=16, known=kept)
    assert plan.depths == [33, 33] and plan.nodes == [(*block, 4, 4, 4)]
    assert plan_prefixes([(7,) * 40], min_tokens=16, known=kept).nodes == []


def test_remainders_are_grouped_so_padding_stays_within_its_slack():
    tails = [10, 100, 12, 11, 90, 1]
    groups = tail_groups(tails, slack=1.25)
    assert sorted(row for group in groups for row in group) == list(range(len(tails)))
    for group in groups:
        assert len(group) * max(tails[r] for r in group) <= 1.25 * sum(tails[r] for r in group)
    assert groups == [[5], [0, 3, 2], [4, 1]]


def test_families_sharing_a_long_prefix_are_scored_together_the_rest_by_length():
    block, other = tuple(range(100, 170)), tuple(range(200, 270))  # 70 tokens each
    contexts = [
        (*block, 5, 6, 7),
        (9, 9),
        (*other, 1),
        (*block, 5),
        (3,),
        (*block, 8),
        (*other, 1),  # equal to the third: stays beside it
        (*block[:60], 4),  # shares 60 tokens only: no family
    ]
    order = execution_order(contexts, family=64)
    assert order == [3, 5, 0, 2, 6, 4, 1, 7]
    assert execution_order([], family=64) == []
