#pragma once
// "Order: model / clustered", the control the head grid and the difference matrix share
// (app/gui/state/head_order.h).
namespace hs::gui {

// Two radio buttons on one line; `id` keeps several on screen apart. Returns true when changed.
bool draw_order_control(const char* id, bool& clustered);

}  // namespace hs::gui
