#pragma once
// Two profiles' shared constants side by side (`perfmodel profile diff`).
#include "perfmodel/model/profile.hpp"
#include "perfmodel/report/report.hpp"

namespace perfmodel::report {

// Rows: key, unit, a, b, relative_difference ((b − a) / a), spread (the larger relative variation
// either calibration observed of that quantity; null where neither recorded one), beyond_spread.
Report profile_diff_report(const Profile& a, const Profile& b);

}  // namespace perfmodel::report
