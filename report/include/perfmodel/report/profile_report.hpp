#pragma once
#include <string>

#include "perfmodel/model/profile.hpp"
#include "perfmodel/report/report.hpp"

namespace perfmodel::report {
// Provenance as metadata; one row per transfer curve (S0's T_x, fit and held-out error) and one
// row per segment (c1, rate, c0).
Report profile_report(const Profile& profile);
// The header every prediction starts with (docs/output.md): the profile's path, whether it is the
// bundled one, its device (null for a CPU-only profile) and host CPU; `note` ("profile: PATH …")
// joins the notes.
void add_profile_header(Report& report, const std::string& path, bool bundled, const Provenance& provenance, const std::string& note);
}  // namespace perfmodel::report
