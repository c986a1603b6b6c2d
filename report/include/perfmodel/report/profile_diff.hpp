#pragma once
// `perfmodel profile diff`: two profiles' shared constants side by side.
#include "cli_common.hpp"
#include "perfmodel/model/profile.hpp"
#include "report.hpp"

namespace perfmodel::cli {

// Rows: key, unit, a, b, relative_difference ((b − a) / a), spread (the larger relative variation
// either calibration observed of that quantity; null where neither recorded one), beyond_spread.
Report profile_diff_report(const Profile& a, const Profile& b);

int profile_diff(const Invocation& sub);

}  // namespace perfmodel::cli
