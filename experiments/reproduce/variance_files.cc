#include "experiments/reproduce/variance_files.h"

namespace compopt::cli::reproduce {

const CsvSchema& variance_schema() {
  static const CsvSchema schema("variance.csv", {{"beta2"},
                                                 {"step"},
                                                 {"lr", "{:.6g}"},
                                                 {"train_loss", "{:.8g}"},
                                                 {"var_norm_l2", "{:.8g}"},
                                                 {"var_ratio_l1", "{:.8g}"}});
  return schema;
}

const CsvSchema& freeze_schema() {
  static const CsvSchema schema("freeze.csv",
                                {{"beta2"}, {"delta"}, {"threshold"}, {"freeze_step"}});
  return schema;
}

}  // namespace compopt::cli::reproduce
