#pragma once
// "Order: model / clustered", the control the head grid and the difference matrix share
// (app/gui/state/head_order.h).
namespace hs::gui {

// Two radio buttons on one line; `id` keeps several on screen apart. Returns true when changed.
bool draw_order_control(const char* id, bool& clustered);
// Its width on a toolbar (for same_line_if_fits: the three parts stay on one line).
float order_control_width();

}  // namespace hs::gui
