// The model file that benchmarks/common.py writes (simbody_model_lines), read into Simbody.
// Shared by simbody_bench.cpp and simbody_integration_bench.cpp.
//
// Model file lines:
//   body PARENT JOINT px py pz mass cx cy cz Ixx Iyy Izz Ixy Ixz Iyz
//       (JOINT: pin | ball | free; X_PF = translation (px, py, pz), X_BM = identity;
//        mass center and inertia about the body origin, in B)
//   q v0 v1 ...     (Simbody's q, quaternions for ball and free)
//   u v0 v1 ...
// Any other line is handed back to the program (e.g. the integration benchmark's "run").
// Gravity: 9.81 along -y.

#pragma once

#include "Simbody.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

struct BenchModel {
    std::vector<double> q, u;             // Simbody's q and u from the file
    std::vector<std::string> otherLines;  // lines that are not body / q / u
};

// Add gravity and the file's bodies to (matter, forces) and read q, u. False (after a
// message on stderr) when the file cannot be read or names an unknown joint.
inline bool readBenchModel(const char* path, SimTK::SimbodyMatterSubsystem& matter,
                           SimTK::GeneralForceSubsystem& forces, BenchModel& model) {
    using namespace SimTK;
    std::ifstream in(path);
    if (!in) {
        std::cerr << "cannot read " << path << "\n";
        return false;
    }
    Force::Gravity(forces, matter, -YAxis, 9.81);
    std::vector<MobilizedBody> mobods;
    mobods.push_back(matter.Ground());
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string kind;
        ls >> kind;
        if (kind == "body") {
            int parent;
            std::string joint;
            double px, py, pz, m, cx, cy, cz, ixx, iyy, izz, ixy, ixz, iyz;
            ls >> parent >> joint >> px >> py >> pz >> m >> cx >> cy >> cz >> ixx >> iyy >> izz >>
                ixy >> ixz >> iyz;
            Body::Rigid body(MassProperties(m, Vec3(cx, cy, cz),
                                            Inertia(ixx, iyy, izz, ixy, ixz, iyz)));
            Transform X_PF(Vec3(px, py, pz));
            MobilizedBody& P = mobods[parent];
            if (joint == "pin")
                mobods.push_back(MobilizedBody::Pin(P, X_PF, body, Transform()));
            else if (joint == "ball")
                mobods.push_back(MobilizedBody::Ball(P, X_PF, body, Transform()));
            else if (joint == "free")
                mobods.push_back(MobilizedBody::Free(P, X_PF, body, Transform()));
            else {
                std::cerr << "unknown joint " << joint << "\n";
                return false;
            }
        } else if (kind == "q" || kind == "u") {
            double v;
            std::vector<double>& dst = kind == "q" ? model.q : model.u;
            while (ls >> v) dst.push_back(v);
        } else {
            model.otherLines.push_back(line);
        }
    }
    return true;
}

// True when the file's q and u fit the realized-topology ``state`` (else a message).
inline bool benchStateSizesMatch(const SimTK::State& state, const BenchModel& model) {
    const int nq = state.getNQ(), nu = state.getNU();
    if ((int)model.q.size() != nq || (int)model.u.size() != nu) {
        std::cerr << "state sizes: file has " << model.q.size() << " q, " << model.u.size()
                  << " u; model has " << nq << ", " << nu << "\n";
        return false;
    }
    return true;
}
