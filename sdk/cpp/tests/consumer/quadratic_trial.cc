// A trial that minimises (x - 1)^2 over `steps` steps: reads its params through
// gpusweep/trial.hpp, reports every step, and on SIGTERM reports where it stopped.
#include <gpusweep/trial.hpp>

#include <chrono>
#include <cmath>
#include <iostream>
#include <thread>

int main() {
  try {
    const gpusweep::Params p = gpusweep::params();
    const double x = p.get<double>("x");
    const int steps = p.get("steps", 3);
    const int sleep_ms = p.get("sleep_ms", 0);
    gpusweep::handle_stop();
    for (int step = 1; step <= steps; ++step) {
      std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
      if (gpusweep::should_stop()) {
        gpusweep::report(step, {{"stopped", true}});
        return 0;
      }
      gpusweep::report(step, {{"loss", std::pow(x - 1.0, 2) + 1.0 / step}});
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "quadratic_trial: " << e.what() << "\n";
    return 2;
  }
}
