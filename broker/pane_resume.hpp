// broker/pane_resume.hpp: starting a restored pane's agent session again
// (docs/rules.md "Resume"): pane.resume, and auto_resume at broker start
// (decision 5).
// Runs in: broker (io thread). Never: resumes a pane whose terminal still
// runs, one without a resume command, or (automatically) one whose command
// did not come from its adapter.
#pragma once

#include <functional>
#include <string>

#include "broker/services.hpp"
#include "common/protocol/methods/pane.hpp"

namespace signaltty::broker {

// Launches the pane's resume_argv in its id and slot, with its saved cwd,
// size and config_env (its agent integration prepared again first), then
// the store's resume_pane (pane.created {resumed: true}) into `txn`, which
// must outlive `done`. BAD_PARAMS for a pane that is not RESTORED/RESUMABLE
// with its ptyhost gone or has no resume command; SPAWN_FAILED leaves the
// record as it was.
void resume_pane_process(Services& services, Txn& txn, const std::string& pane_id,
                         std::function<void(Result<protocol::PaneLaunchResult>)> done);

// decision 5: every RESUMABLE pane of a workspace with auto_resume whose
// resume_argv is its adapter's own command for its session.
void auto_resume_panes(Services& services);

}  // namespace signaltty::broker
