// broker/methods/subscribe.cpp: the `subscribe` handler
// (docs/rules.md: Events, Replay).
// Runs in: broker (io thread).
// Never: decides replay status or writes events itself; the event hub owns
// subscriptions, the fence and the replay.
#include "broker/event_hub.hpp"
#include "broker/event_pipeline.hpp"
#include "broker/handlers.hpp"

namespace signaltty::broker {

// The router sends replies through the pipeline's durability barrier, so
// the hub waits on the same barrier before writing frames behind a reply.
// The pipeline's head counts every number issued, pty.data's included: a
// cursor from server.status or any event is never ahead of it.
void handle(p::Subscribe, Ctx& ctx, p::SubscribeParams&& params,
            Reply<p::SubscribeResult> reply) {
  auto filter = make_event_filter(params);
  if (!filter.ok()) return reply(std::move(filter).error());
  EventPipeline& pipeline = ctx.services.pipeline;
  ctx.services.hub.subscribe(ctx.session, std::move(filter).value(), params.from_seq,
                             pipeline.head_seq(), std::move(reply),
                             [&pipeline](std::function<void()> then) {
                               pipeline.after_durable(std::move(then));
                             });
}

}  // namespace signaltty::broker
