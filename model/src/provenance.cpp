#include "perfmodel/model/provenance.hpp"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <random>
#include <fstream>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/version.hpp"

namespace perfmodel {

namespace {

// One list of the fields, for the mutable and the const view alike.
template <class Self, class Pointer>
std::vector<std::pair<std::string, Pointer>> fields_of(Self& p) {
  return {{"device_name", &p.device_name},         {"device_uuid", &p.device_uuid},
          {"pci_bus_id", &p.pci_bus_id},           {"driver_version", &p.driver_version},
          {"runtime_version", &p.runtime_version}, {"host_cpu", &p.host_cpu},
          {"host_name", &p.host_name},             {"date_utc", &p.date_utc},
          {"command", &p.command},                 {"toolkit_version", &p.toolkit_version},
          {"toolkit_commit", &p.toolkit_commit}};
}

}  // namespace

std::vector<std::pair<std::string, std::string*>> Provenance::fields() {
  return fields_of<Provenance, std::string*>(*this);
}

std::vector<std::pair<std::string, const std::string*>> Provenance::fields() const {
  return fields_of<const Provenance, const std::string*>(*this);
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

Provenance host_provenance(const std::string& command) {
  Provenance p;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) p.host_name = host;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) p.host_cpu = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  }
  p.date_utc = utc_now_iso8601();
  std::random_device entropy;
  char tail[32];
  std::snprintf(tail, sizeof tail, "-%ld-%08x", static_cast<long>(::getpid()), static_cast<unsigned>(entropy()));
  p.run_id = p.date_utc + "-" + p.host_name + tail;
  p.command = command;
  p.toolkit_version = toolkit_version();
  p.toolkit_commit = toolkit_commit();
  return p;
}

void check_same_run(const Provenance& profile, const std::string& profile_path, const Provenance& samples,
                    const std::string& samples_path) {
  if (profile.run_id.empty() || samples.run_id.empty() || profile.run_id == samples.run_id) return;
  throw InputError(samples_path + ": run_id '" + samples.run_id + "' differs from " + profile_path + "'s '" + profile.run_id +
                   "': the samples are from another calibration run than the profile");
}

}  // namespace perfmodel
