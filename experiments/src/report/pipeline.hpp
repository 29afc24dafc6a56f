#pragma once
// The verdict's sealing pipeline rows (verdict.hpp: pipeline_row): PC2 per sector from the
// run's pc2 records (CPU) and the PC2 model (GPU), beside the PC1 rows.
#include "report/amax.hpp"
#include "report/verdict.hpp"

namespace poreplab::verdict {

// Fills row.pipeline and row.cores_per_gpu from row.devices (PC1) and the pc2 records.
void fill_pipeline(size_row& row, const amax::inputs& in);

}  // namespace poreplab::verdict
