// The ball-drop trajectory of ../shared/reference/contact.json with Simbody 3.7's compliant
// contact (or its surfaces as a HuntCrossleyForce contact set), RungeKuttaMersonIntegrator (no interpolation) and TimeStepper, timed. Written for
// bench_contact.py, which writes the model file and builds this against a Release build.
//
// Usage: simbody_contact_bench MODEL_FILE
//
// MODEL_FILE lines (numbers separated by spaces):
//   gravity GX GY GZ
//   body MASS CX CY CZ IXX IYY IZZ IXY IXZ IYZ      (a Free body on Ground; inertia about Bo)
//   surface BODY TYPE R00 R01 .. R22 PX PY PZ RADIUS STIFFNESS DISSIPATION US UD UV THICKNESS
//       (BODY 0 = Ground, k = the k-th body line; TYPE 0 HalfSpace, 1 Sphere)
//   transition VT
//   track 0|1                                       (track the dissipated energy: one z)
//   hunt 0|1      (1: the surfaces form one contact set of a GeneralContactSubsystem with a
//                  HuntCrossleyForce, each surface's material its setBodyParameters;
//                  thickness and track are then unused)
//   q ...  /  u ...                                 (initial state; z starts at 0)
//   run ACCURACY REPORT_INTERVAL FINAL_TIME REPEATS
// Output (stdout):
//   steps TAKEN ATTEMPTED
//   wall SECONDS   (best of REPEATS runs, each from initialize() to stepTo(FINAL_TIME))
//   cpu SECONDS    (process CPU time of the best run)
//   q v0 v1 ...    (final state)
//   u v0 v1 ...

#include "Simbody.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace SimTK;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: simbody_contact_bench MODEL_FILE\n";
        return 2;
    }
    std::ifstream in(argv[1]);
    MultibodySystem system;
    SimbodyMatterSubsystem matter(system);
    GeneralForceSubsystem forces(system);
    std::vector<MobilizedBody> bodies{matter.Ground()};
    std::vector<Real> q0, u0;
    Real vt = 0.01, accuracy = 1e-8, interval = 0.025, tFinal = 2.0;
    int track = 0, repeats = 1, hunt = 0;
    struct SurfaceSpec {
        int body, type;
        Transform X;
        Real radius, k, c, us, ud, uv, thickness;
    };
    std::vector<SurfaceSpec> surfaces;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string key;
        ls >> key;
        if (key == "gravity") {
            Vec3 g;
            ls >> g[0] >> g[1] >> g[2];
            Force::UniformGravity(forces, matter, g);
        } else if (key == "body") {
            Real m, cx, cy, cz, xx, yy, zz, xy, xz, yz;
            ls >> m >> cx >> cy >> cz >> xx >> yy >> zz >> xy >> xz >> yz;
            Body::Rigid body(MassProperties(m, Vec3(cx, cy, cz),
                                            Inertia(Vec3(xx, yy, zz), Vec3(xy, xz, yz))));
            bodies.push_back(MobilizedBody::Free(matter.Ground(), Transform(), body, Transform()));
        } else if (key == "surface") {
            SurfaceSpec s;
            Mat33 R;
            Vec3 p;
            ls >> s.body >> s.type;
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) ls >> R(i, j);
            ls >> p[0] >> p[1] >> p[2];
            ls >> s.radius >> s.k >> s.c >> s.us >> s.ud >> s.uv >> s.thickness;
            s.X = Transform(Rotation(R, true), p);
            surfaces.push_back(s);
        } else if (key == "transition") {
            ls >> vt;
        } else if (key == "track") {
            ls >> track;
        } else if (key == "hunt") {
            ls >> hunt;
        } else if (key == "q" || key == "u") {
            std::vector<Real>& v = key == "q" ? q0 : u0;
            Real x;
            while (ls >> x) v.push_back(x);
        } else if (key == "run") {
            ls >> accuracy >> interval >> tFinal >> repeats;
        }
    }
    // (the handles live until the end: the force elements keep references to them)
    std::unique_ptr<GeneralContactSubsystem> general;
    std::unique_ptr<ContactTrackerSubsystem> tracker;
    std::unique_ptr<CompliantContactSubsystem> compliant;
    if (hunt) {
        general.reset(new GeneralContactSubsystem(system));
        GeneralContactSubsystem& contacts = *general;
        ContactSetIndex set = contacts.createContactSet();
        for (const SurfaceSpec& s : surfaces) {
            if (s.type == 0)
                contacts.addBody(set, bodies[s.body], ContactGeometry::HalfSpace(), s.X);
            else
                contacts.addBody(set, bodies[s.body], ContactGeometry::Sphere(s.radius), s.X);
        }
        HuntCrossleyForce hc(forces, contacts, set);
        for (int i = 0; i < (int)surfaces.size(); ++i) {
            const SurfaceSpec& s = surfaces[i];
            hc.setBodyParameters(ContactSurfaceIndex(i), s.k, s.c, s.us, s.ud, s.uv);
        }
        hc.setTransitionVelocity(vt);
    } else {
        for (const SurfaceSpec& s : surfaces) {
            ContactMaterial material(s.k, s.c, s.us, s.ud, s.uv);
            ContactSurface surface = s.type == 0
                ? ContactSurface(ContactGeometry::HalfSpace(), material, s.thickness)
                : ContactSurface(ContactGeometry::Sphere(s.radius), material, s.thickness);
            bodies[s.body].updBody().addContactSurface(s.X, surface);
        }
        tracker.reset(new ContactTrackerSubsystem(system));
        compliant.reset(new CompliantContactSubsystem(system, *tracker));
        compliant->setTransitionVelocity(vt);
        compliant->setTrackDissipatedEnergy(track != 0);
    }
    system.realizeTopology();
    State initial = system.getDefaultState();
    for (int i = 0; i < (int)q0.size(); ++i) initial.updQ()[i] = q0[i];
    for (int i = 0; i < (int)u0.size(); ++i) initial.updU()[i] = u0[i];

    double bestWall = 1e300, bestCpu = 1e300;
    int taken = 0, attempted = 0;
    Vector q, u;
    for (int r = 0; r < repeats; ++r) {
        RungeKuttaMersonIntegrator integ(system);
        integ.setAccuracy(accuracy);
        integ.setAllowInterpolation(false);
        TimeStepper ts(system, integ);
        auto w0 = std::chrono::steady_clock::now();
        std::clock_t c0 = std::clock();
        ts.initialize(initial);
        const int reports = (int)std::lround(tFinal / interval);
        for (int k = 1; k <= reports; ++k) ts.stepTo(k * interval);
        double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        if (wall < bestWall) {
            bestWall = wall;
            bestCpu = cpu;
        }
        taken = integ.getNumStepsTaken();
        attempted = integ.getNumStepsAttempted();
        q = ts.getState().getQ();
        u = ts.getState().getU();
    }
    std::printf("steps %d %d\n", taken, attempted);
    std::printf("wall %.6f\ncpu %.6f\n", bestWall, bestCpu);
    std::printf("q");
    for (int i = 0; i < q.size(); ++i) std::printf(" %.17g", q[i]);
    std::printf("\nu");
    for (int i = 0; i < u.size(); ++i) std::printf(" %.17g", u[i]);
    std::printf("\n");
    return 0;
}
