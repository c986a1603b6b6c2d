#pragma once
#include "perfmodel/model/profile.hpp"
#include "perfmodel/report/report.hpp"

namespace perfmodel::report {
// Provenance as metadata; one row per transfer curve (S0's T_x, fit and held-out error) and one
// row per segment (c1, rate, c0).
Report profile_report(const Profile& profile);
}  // namespace perfmodel::report
