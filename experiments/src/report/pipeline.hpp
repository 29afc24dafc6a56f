#pragma once
// The verdict's sealing pipeline rows (verdict.hpp: pipeline_row): PC2 per sector from the
// run's pc2 records (CPU), and for a GPU from the run's, else a reference dataset's
// (report/reference.hpp), else the PC2 model; beside the PC1 rows.
#include "report/amax.hpp"
#include "report/verdict.hpp"

namespace poreplab::verdict {

// Fills row.pipeline and row.cores_per_gpu from row.devices (PC1) and the pc2 records;
// `references`: GPU records measured elsewhere, read only where `in` has no GPU pc2 record.
void fill_pipeline(size_row& row, const records::result_set& in, const records::result_set& references);

// Appends machine m's whole pipeline to row.machine_pipeline, from its rows in row.machines:
// PC1 on its CPU; PC2 on its GPUs (this run's cuda pc2 records where this run measured that
// architecture, else a reference dataset's of that architecture, else the PC2 model), or on
// its CPU, taking turns with PC1, when it has none.
void fill_machine_pipeline(size_row& row, const machine& m, const records::result_set& in, const std::string& measured_gpu_arch,
                           const records::result_set& references);

// One sector's PC2 on one GPU of `arch`: the run's cuda pc2 records where they measured that
// architecture (extrapolated to another machine's GPU), else the PC2 model; `device` gets
// the GPU's name.
figure pc2_seconds_on_gpu(const size_row& row, const records::result_set& in, const std::string& arch, std::string* device);
// One sector's PC2 on `threads` threads of a CPU: the run's cpu pc2 record per thread times
// the threads (extrapolated).
figure pc2_seconds_on_cpu(const size_row& row, const records::result_set& in, std::uint32_t threads);

}  // namespace poreplab::verdict
