"""The collectives check: reading compiled HLO, counting per kind and per trip, naming
what each collective carries, and grading submissions by what they send.

Here: the tests that start no process; tests/integration/test_collectives.py has those that
grade in a worker."""

from __future__ import annotations

from judge.checks.collectives import Tally, collective_sites, read_hlo

# A module shaped like Compiled.as_text() on CPU: a seven-trip loop around a permute,
# a conditional of one and two all-reduces, an async all-gather, a merged all-reduce.
HLO = """HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[8]{0}, f32[4]{0})->f32[8]{0}}, num_partitions=8

FileNames
1 "/scratch/worker-x/submission.py"
2 "/usr/lib/python3/somewhere.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=12 end_line=12 column=4 end_column=4}
2 {file_name_id=2 function_name_id=1 line=99 end_line=99 column=4 end_column=4}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=1}


%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

%body (state: (s32[], f32[8])) -> (s32[], f32[8]) {
  %state = (s32[], f32[8]{0}) parameter(0)
  %gte = f32[8]{0} get-tuple-element(%state), index=1
  %permute = f32[8]{0} collective-permute(%gte), channel_id=1, source_target_pairs={{0,1},{1,0}}, metadata={op_name="jit(f)/shard_map/while/body/ppermute" stack_frame_id=1}
  %i = s32[] get-tuple-element(%state), index=0
  ROOT %next = (s32[], f32[8]{0}) tuple(%i, %permute)
}

%cond (state.1: (s32[], f32[8])) -> pred[] {
  %state.1 = (s32[], f32[8]{0}) parameter(0)
  ROOT %lt = pred[] constant(true)
}

%one (p.1: f32[4]) -> f32[4] {
  %p.1 = f32[4]{0} parameter(0)
  ROOT %r1 = f32[4]{0} all-reduce(%p.1), channel_id=2, to_apply=%add, metadata={op_name="jit(f)/psum_invariant" stack_frame_id=1}
}

%two (p.2: f32[4]) -> f32[4] {
  %p.2 = f32[4]{0} parameter(0)
  %r2 = f32[4]{0} all-reduce(%p.2), channel_id=3, to_apply=%add
  ROOT %r3 = f32[4]{0} all-reduce(%r2), channel_id=4, to_apply=%add
}

%fused (param_0: f32[8]) -> f32[8] {
  %param_0 = f32[8]{0} parameter(0)
  ROOT %neg = f32[8]{0} negate(%param_0)
}

ENTRY %main (x: f32[8], w: f32[4]) -> f32[8] {
  %x = f32[8]{0} parameter(0), sharding={devices=[8]<=[8]}, metadata={op_name="x"}
  %w = f32[4]{0} parameter(1), sharding={replicated}, metadata={op_name="w"}
  %negated = f32[8]{0} fusion(%x), kind=kLoop, calls=%fused
  %zero = s32[] constant(0)
  %init = (s32[], f32[8]{0}) tuple(%zero, %negated)
  %loop = (s32[], f32[8]{0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"7"}}
  %flag = s32[] constant(1)
  %branch = f32[4]{0} conditional(%flag, %w, %w), branch_computations={%one, %two}
  %gather = (f32[8]{0}, f32[64]{0}) all-gather-start(%x), dimensions={0}, metadata={op_name="jit(f)/reshard" stack_frame_id=2}
  %done = f32[64]{0} all-gather-done(%gather)
  %merged = (f32[4]{0}, f32[]) all-reduce(%w, %zero), to_apply=%add
  ROOT %out = f32[8]{0} get-tuple-element(%loop), index=1
}
"""


def test_collectives_are_counted_per_kind_once_per_trip_and_the_larger_branch():
    tally = Tally.of({"hlo": HLO})
    assert tally.num_partitions == 8
    assert tally.counts == {
        "all-reduce": 3,
        "all-gather": 1,
        "reduce-scatter": 0,
        "collective-permute": 7,
        "all-to-all": 0,
    }
    # bytes per device: 7 permutes of 32, the gathered 256 (not the operand too), the
    # branch's two all-reduces of 16, a merged all-reduce of 16 + 4
    assert tally.bytes == 7 * 32 + 256 + 2 * 16 + 20


def test_each_collective_says_what_it_carries_and_where_it_came_from():
    sites = {s.kind: s for s in collective_sites(read_hlo(HLO))}
    permute = sites["collective-permute"]
    assert permute.times == 7 and permute.fixed_trips
    assert permute.sources == ["x"]  # through the loop, the fusion, to the argument
    assert (permute.operation, permute.file.rsplit("/", 1)[-1], permute.line) == (
        "lax.ppermute",
        "submission.py",
        12,
    )
    gather = sites["all-gather"]
    assert (gather.sources, gather.operation, gather.bytes_each) == (["x"], "jax.reshard", 256)


def test_a_loop_without_a_fixed_trip_count_is_counted_once_and_says_so():
    text = HLO.replace(', backend_config={"known_trip_count":{"n":"7"}}', "")
    permute = [s for s in collective_sites(read_hlo(text)) if s.kind == "collective-permute"]
    assert [(s.times, s.fixed_trips) for s in permute] == [(1, False)]


# ---------------------------------------------------------------- grading by what is sent
