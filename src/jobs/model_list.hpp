#pragma once
// The registry's entries (docs/design_models.md): one function per model, each defined in the model's own
// src/jobs/<stem>_job.cpp next to its run function and writers; model.cpp lists them in help order.
#include "netdp/jobs/model.hpp"

namespace netdp::jobs {

Model graph_model();                     // graph_job.cpp
Model gossip_loss_model();               // gossip_loss_job.cpp
Model gossip_er_bound_model();           // gossip_er_bound_job.cpp
Model walk_loss_model();                 // walk_loss_job.cpp
Model complete_sum_bound_model();        // complete_graph_sum_job.cpp
Model complete_histogram_bound_model();  // complete_graph_histogram_job.cpp
Model ring_sum_bound_model();            // ring_job.cpp
Model ring_histogram_bound_model();      // ring_job.cpp
Model sgd_rdp_bound_model();             // complete_graph_sgd_job.cpp
Model sgd_closed_form_bound_model();     // complete_graph_sgd_job.cpp
Model sgd_sigma_bound_model();           // complete_graph_sgd_sigma_job.cpp
Model gossip_sim_model();                // gossip_sim_job.cpp
Model muffliato_gd_model();              // muffliato_gd_job.cpp
Model walk_sim_model();                  // walk_sim_job.cpp
Model walk_sgd_model();                  // walk_sgd_job.cpp
Model muffliato_sgd_model();             // muffliato_sgd_job.cpp
Model attack_gossip_model();             // attack_gossip_job.cpp
Model attack_dgd_model();                // attack_dgd_job.cpp
Model mf_loss_model();                   // mf_loss_job.cpp
Model mf_factorize_model();              // mf_factorize_job.cpp
Model mf_sgd_model();                    // mf_sgd_job.cpp
Model admm_model();                      // admm_job.cpp

}  // namespace netdp::jobs
