// Clang's thread-safety annotations (-Wthread-safety), as LevelDB uses them:
// they name the mutex that guards a member, so the compiler can check that
// nothing touches it unlocked. Other compilers see nothing.
#pragma once

#if defined(__clang__)
#define CILIA_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define CILIA_THREAD_ANNOTATION(x)
#endif

#define CILIA_GUARDED_BY(x) CILIA_THREAD_ANNOTATION(guarded_by(x))
#define CILIA_PT_GUARDED_BY(x) CILIA_THREAD_ANNOTATION(pt_guarded_by(x))
#define CILIA_REQUIRES(...) CILIA_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define CILIA_EXCLUDES(...) CILIA_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
